//! A tool's text on its way to JavaScript, in the cheapest form the runtime takes.
//!
//! ASCII text (nearly every source file) crosses with `napi_create_string_latin1`, a plain
//! copy into a one-byte V8 string, instead of `napi_create_string_utf8`, whose decoder walks
//! every byte on the main thread (a third of the main thread's share of a 2,000-line
//! read_file). A large ASCII text is not copied at all where the runtime offers
//! `node_api_create_external_string_latin1` (Node ≥ 20.4, experimental before Node-API 10):
//! V8 then reads our buffer in place, and frees it through our finalizer when the string is
//! collected. Copying an 800 KB `read_files` result cost ~0.8 ms of the main thread — a
//! fresh large-object allocation whose pages fault in, then the copy — about half of the
//! whole call. The symbol is looked up at run time (`dlsym`): linking it would stop the
//! addon from loading on a Node without it.

use napi::bindgen_prelude::*;
use std::ffi::c_void;

/// A tool's text and whether it is ASCII (computed on the worker thread).
pub struct Text {
    text: String,
    ascii: bool,
}

impl Text {
    pub fn new(text: String) -> Text {
        let ascii = text.is_ascii();
        Text { text, ascii }
    }
}

impl TypeName for Text {
    fn type_name() -> &'static str {
        "String"
    }

    fn value_type() -> ValueType {
        ValueType::String
    }
}

/// Below this a copy is cheaper than an external string's bookkeeping (a resource object,
/// a finalizer, an entry in V8's external string table); every `read_file` page of a
/// usual source file stays under it.
const EXTERNAL_FROM: usize = 64 * 1024;

/// Above this the text is left to the copying path, which reports V8's string length limit
/// (~512 MiB) as an error; an external string that V8 refuses would leak its buffer.
const EXTERNAL_UP_TO: usize = 256 << 20;

impl ToNapiValue for Text {
    unsafe fn to_napi_value(env: napi::sys::napi_env, val: Text) -> Result<napi::sys::napi_value> {
        if !val.ascii {
            return String::to_napi_value(env, val.text);
        }
        let val = if (EXTERNAL_FROM..=EXTERNAL_UP_TO).contains(&val.text.len()) {
            match external(env, val.text) {
                Ok(value) => return Ok(value),
                Err(text) => Text { text, ascii: true },
            }
        } else {
            val
        };
        let mut raw = std::ptr::null_mut();
        // SAFETY: `val.text` is alive for the call and its bytes are ASCII, hence valid
        // Latin-1 of the same length; V8 copies them before returning.
        let status = unsafe {
            napi::sys::napi_create_string_latin1(
                env,
                val.text.as_ptr().cast(),
                val.text.len() as isize,
                &mut raw,
            )
        };
        napi::check_status!(status, "Failed to create a string")?;
        Ok(raw)
    }
}

/// `node_api_create_external_string_latin1`'s signature (Node's `js_native_api.h`).
type CreateExternal = unsafe extern "C" fn(
    env: napi::sys::napi_env,
    str: *mut std::ffi::c_char,
    length: isize,
    finalize: napi::sys::napi_finalize,
    hint: *mut c_void,
    result: *mut napi::sys::napi_value,
    copied: *mut bool,
) -> napi::sys::napi_status;

/// The runtime's `node_api_create_external_string_latin1`, if it has one.
fn create_external() -> Option<CreateExternal> {
    static FOUND: std::sync::OnceLock<Option<CreateExternal>> = std::sync::OnceLock::new();
    *FOUND.get_or_init(|| {
        #[cfg(unix)]
        {
            // SAFETY: dlsym with RTLD_DEFAULT and a NUL-terminated name only looks a symbol
            // up. A non-null result is Node's exported function of the declared signature.
            let sym = unsafe {
                libc::dlsym(
                    libc::RTLD_DEFAULT,
                    c"node_api_create_external_string_latin1".as_ptr(),
                )
            };
            (!sym.is_null()).then(|| {
                // SAFETY: see above; a function pointer and a data pointer have one size here.
                unsafe { std::mem::transmute::<*mut c_void, CreateExternal>(sym) }
            })
        }
        #[cfg(not(unix))]
        {
            None
        }
    })
}

/// Frees a text handed to V8 as an external string, when V8 collects the string (or the
/// runtime copied it instead, or the environment is torn down).
unsafe extern "C" fn release(env: napi::sys::napi_env, _data: *mut c_void, hint: *mut c_void) {
    // SAFETY: `hint` is the `Box<String>` leaked in `external`, and Node calls the finalizer
    // once.
    let text = unsafe { Box::from_raw(hint.cast::<String>()) };
    adjust(env, -(text.len() as i64));
}

/// Tells V8 how much memory its external strings hold outside its heap: without it a loop
/// of large results grew to 1.8 GB before a collection ran.
fn adjust(env: napi::sys::napi_env, change: i64) {
    let mut total = 0;
    // SAFETY: `env` is the environment the call or the finalizer was given.
    unsafe { napi::sys::napi_adjust_external_memory(env, change, &mut total) };
}

/// `text` (ASCII) as an external one-byte string, or the text back where the runtime has no
/// such call or refused before taking it.
fn external(
    env: napi::sys::napi_env,
    text: String,
) -> std::result::Result<napi::sys::napi_value, String> {
    let Some(create) = create_external() else {
        return Err(text);
    };
    let boxed = Box::new(text);
    adjust(env, boxed.len() as i64);
    let (data, len) = (boxed.as_ptr().cast_mut(), boxed.len());
    let hint = Box::into_raw(boxed);
    let mut raw = std::ptr::null_mut();
    let mut copied = false;
    // SAFETY: the bytes at `data` are ASCII (valid Latin-1), `len` long, and stay alive and
    // unchanged until `release` runs: the `String` they belong to is owned by the finalizer
    // from here on, and a `String`'s buffer does not move when its box is moved.
    let status = unsafe {
        create(
            env,
            data.cast(),
            len as isize,
            Some(release),
            hint.cast(),
            &mut raw,
            &mut copied,
        )
    };
    if status == napi::sys::Status::napi_ok {
        return Ok(raw);
    }
    // Refused: Node returns before making its resource for a bad argument or a pending
    // exception, so the finalizer will not run and the text is still ours. (A refusal
    // after the resource was made cannot be told apart; the bounds above keep V8's only
    // such refusal — the length limit — from happening.)
    // SAFETY: `hint` came from `Box::into_raw` above and nothing else owns it.
    let text = *unsafe { Box::from_raw(hint) };
    adjust(env, -(text.len() as i64));
    Err(text)
}
