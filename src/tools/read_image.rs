//! `read_image`: an image file as an image content part (base64), for models that see images.

use super::title;
use super::{object_schema, read_annotations, Call, Handler, Output, ToolDef};
use crate::error::{Code, ToolError, ToolResult};
use crate::schema::str_arg;
use crate::{image, text, workspace};
use base64::Engine;
use serde_json::{json, Map, Value};
use std::io::Read;

const DESCRIPTION: &str = "Look at an image file in the workspace (PNG, JPEG, GIF or WebP, recognised by its bytes, not its name): the result is the image itself, for you to see — a screenshot, a diagram, a rendered page. Use read_file for text files and file_stat to check a file's type or size first. Errors: not_found (check the path with list_dir or glob), not_a_file (a directory, FIFO, socket or device), too_large (the file is over the image size limit: raise MAX_IMAGE_BYTES or shrink the image), not_an_image (not one of the four formats: read_file it if it is text), path_escape (stay inside the workspace).";

/// The `read_image` tool definition.
pub fn def() -> ToolDef {
    ToolDef {
        name: "read_image",
        description: DESCRIPTION,
        schema,
        bounded: false,
        annotations: read_annotations(),
        handler: Handler::Blocking(run),
        aborted: ToolError::aborted,
        syntax: false,
        unstaged: false,
    }
}

fn schema() -> Value {
    object_schema(
        json!({
            "path": { "type": "string", "description": "The image file, relative to the workspace root or absolute." }
        }),
        &["path"],
    )
}

fn run(call: &Call) -> ToolResult<Output> {
    let input = str_arg(&call.args, "path").unwrap_or_default();
    let abs = workspace::resolve(&call.config, input)?;
    let file = workspace::open_confined(&call.config, &abs, input)?;
    let meta = file.metadata().map_err(|e| ToolError::fs(&e, input))?;
    if meta.is_dir() {
        return Err(
            ToolError::new(Code::NotAFile, format!("Path is a directory: {input}"))
                .with("path", input),
        );
    }
    // A FIFO, socket or device is no image file (and a device may never end).
    if !meta.is_file() {
        return Err(ToolError::not_regular(input));
    }
    let limit = call.config.max_image_bytes;
    if meta.len() > limit {
        return Err(text::too_large_for(
            "MAX_IMAGE_BYTES",
            input,
            meta.len(),
            limit,
        ));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    (&file)
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| ToolError::fs(&e, input))?;
    if bytes.len() as u64 > limit {
        return Err(text::too_large_for(
            "MAX_IMAGE_BYTES",
            input,
            bytes.len() as u64,
            limit,
        ));
    }
    let Some(mime) = image::sniff(&bytes) else {
        return Err(ToolError::new(
            Code::NotAnImage,
            format!("Not a supported image (expected png, jpeg, gif, or webp): {input}"),
        )
        .with("path", input));
    };
    let data = base64::engine::general_purpose::STANDARD.encode(&bytes);
    Ok(Output::image(data, mime))
}

/// The call's title (`describeCall`): what a progress list or an approval prompt shows.
pub fn title(args: &Map<String, Value>) -> String {
    match title::text(args, "path") {
        Some(p) => format!("View image {}", title::short_path(p)),
        None => "View an image".into(),
    }
}
