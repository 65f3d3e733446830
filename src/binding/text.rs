//! A tool's text on its way to JavaScript, in the cheapest form the runtime takes.
//!
//! ASCII text (nearly every source file) crosses with `napi_create_string_latin1`, a plain
//! copy into a one-byte V8 string, instead of `napi_create_string_utf8`, whose decoder walks
//! every byte on the main thread (a third of the main thread's share of a 2,000-line
//! read_file). A large text is not copied at all where the runtime offers
//! `node_api_create_external_string_latin1` / `_utf16` (Node ≥ 20.4, experimental before
//! Node-API 10): V8 then reads our buffer in place (ASCII as it is, anything else converted
//! to UTF-16 on the worker), and frees it through our finalizer when the string is
//! collected. Copying an 800 KB `read_files` result cost ~0.8 ms of the main thread — a
//! fresh large-object allocation whose pages fault in, then the copy — about half of the
//! whole call. The symbol is looked up at run time (`dlsym`): linking it would stop the
//! addon from loading on a Node without it.

use napi::bindgen_prelude::*;
use std::ffi::c_void;

/// A tool's text, in the form chosen for it on the worker thread.
pub struct Text {
    repr: Repr,
}

enum Repr {
    /// UTF-8 for V8 to decode (small non-ASCII texts, or no external strings).
    Utf8(String),
    /// ASCII: valid Latin-1 as it is.
    Ascii(String),
    /// A large non-ASCII text already in UTF-16, for an external two-byte string.
    Wide(Vec<u16>),
}

impl Text {
    pub fn new(text: String) -> Text {
        if text.is_ascii() {
            return Text {
                repr: Repr::Ascii(text),
            };
        }
        // V8 decodes UTF-8 on the main thread, byte by byte once the text is not plain
        // ASCII (4.7-6.4 ms for `tree`'s 1.5 MB of box drawing). Converted here, on the
        // worker, with encoding_rs's SIMD converter, it crosses without a decode or a copy.
        if external_size(text.len()) && create_external(UTF16).is_some() {
            // Zeroed memory comes from calloc: fresh pages, not written twice; the units
            // past the text are never touched. The pages the text will fill are mapped in one
            // call (see `output::string_for`): ~750 single faults for tree's 1.5 MB.
            let mut wide = vec![0u16; text.len()];
            crate::output::populate(&mut wide[..utf16_units(&text)]);
            let n = encoding_rs::mem::convert_str_to_utf16(&text, &mut wide);
            wide.truncate(n);
            return Text {
                repr: Repr::Wide(wide),
            };
        }
        Text {
            repr: Repr::Utf8(text),
        }
    }
}

/// How many UTF-16 units `text` becomes: one per char (every byte but continuation bytes
/// starts one), two for a 4-byte sequence. One branch-free pass the compiler vectorises.
fn utf16_units(text: &str) -> usize {
    text.bytes()
        .map(|b| usize::from(b & 0xC0 != 0x80) + usize::from(b >= 0xF0))
        .sum()
}

impl TypeName for Text {
    fn type_name() -> &'static str {
        "String"
    }

    fn value_type() -> ValueType {
        ValueType::String
    }
}

/// Below this V8 copies a string into its young generation (bump allocation in pages it
/// already has), which beat an external string — its buffer held until a collection, the
/// collections it brings forward: a 117 KB `read_file` took 203 µs external against 167 µs
/// copied. From V8's large-object threshold (128 KiB) on, a copy gets fresh pages of its
/// own, which is what made the 800 KB result slow.
const EXTERNAL_FROM: usize = 128 * 1024;

/// Above this the text is left to the copying path, which reports V8's string length limit
/// (~512 MiB) as an error; an external string that V8 refuses would leak its buffer.
const EXTERNAL_UP_TO: usize = 256 << 20;

fn external_size(len: usize) -> bool {
    (EXTERNAL_FROM..=EXTERNAL_UP_TO).contains(&len)
}

impl ToNapiValue for Text {
    unsafe fn to_napi_value(env: napi::sys::napi_env, val: Text) -> Result<napi::sys::napi_value> {
        let text = match val.repr {
            Repr::Utf8(text) => return String::to_napi_value(env, text),
            Repr::Wide(wide) => match external(env, Owned::Wide(wide)) {
                Ok(value) => return Ok(value),
                // Refused: back to UTF-8 for the ordinary path (rare: Node said no).
                Err(Owned::Wide(wide)) => {
                    return String::to_napi_value(env, String::from_utf16_lossy(&wide))
                }
                Err(Owned::Ascii(text)) => text,
            },
            Repr::Ascii(text) if external_size(text.len()) => {
                match external(env, Owned::Ascii(text)) {
                    Ok(value) => return Ok(value),
                    Err(Owned::Ascii(text)) => text,
                    Err(Owned::Wide(wide)) => {
                        return String::to_napi_value(env, String::from_utf16_lossy(&wide))
                    }
                }
            }
            Repr::Ascii(text) => text,
        };
        let mut raw = std::ptr::null_mut();
        // SAFETY: `text` is alive for the call and its bytes are ASCII, hence valid Latin-1
        // of the same length; V8 copies them before returning.
        let status = unsafe {
            napi::sys::napi_create_string_latin1(
                env,
                text.as_ptr().cast(),
                text.len() as isize,
                &mut raw,
            )
        };
        napi::check_status!(status, "Failed to create a string")?;
        Ok(raw)
    }
}

/// `node_api_create_external_string_latin1` / `_utf16`'s signature (Node's
/// `js_native_api.h`; the data pointer is `char*` or `char16_t*`).
type CreateExternal = unsafe extern "C" fn(
    env: napi::sys::napi_env,
    str: *mut c_void,
    length: isize,
    finalize: napi::sys::napi_finalize,
    hint: *mut c_void,
    result: *mut napi::sys::napi_value,
    copied: *mut bool,
) -> napi::sys::napi_status;

const LATIN1: usize = 0;
const UTF16: usize = 1;

/// The runtime's `node_api_create_external_string_latin1` (`LATIN1`) or `_utf16`
/// (`UTF16`), if it has them.
fn create_external(which: usize) -> Option<CreateExternal> {
    static FOUND: std::sync::OnceLock<[Option<CreateExternal>; 2]> = std::sync::OnceLock::new();
    FOUND.get_or_init(|| {
        [
            lookup(c"node_api_create_external_string_latin1"),
            lookup(c"node_api_create_external_string_utf16"),
        ]
    })[which]
}

fn lookup(name: &std::ffi::CStr) -> Option<CreateExternal> {
    #[cfg(unix)]
    {
        // SAFETY: dlsym with RTLD_DEFAULT and a NUL-terminated name only looks a symbol up.
        // A non-null result is Node's exported function of the declared signature.
        let sym = unsafe { libc::dlsym(libc::RTLD_DEFAULT, name.as_ptr()) };
        (!sym.is_null()).then(|| {
            // SAFETY: see above; a function pointer and a data pointer have one size here.
            unsafe { std::mem::transmute::<*mut c_void, CreateExternal>(sym) }
        })
    }
    #[cfg(not(unix))]
    {
        let _ = name;
        None
    }
}

/// A text handed to V8 as an external string, owned by its finalizer.
enum Owned {
    Ascii(String),
    Wide(Vec<u16>),
}

impl Owned {
    /// The bytes V8 reads, their address and their length in units.
    fn parts(&self) -> (*mut c_void, usize, usize, usize) {
        match self {
            Owned::Ascii(s) => (s.as_ptr().cast_mut().cast(), s.len(), s.len(), LATIN1),
            Owned::Wide(w) => (w.as_ptr().cast_mut().cast(), w.len(), w.len() * 2, UTF16),
        }
    }
}

/// Frees a text handed to V8 as an external string, when V8 collects the string (or the
/// runtime copied it instead, or the environment is torn down).
unsafe extern "C" fn release(env: napi::sys::napi_env, _data: *mut c_void, hint: *mut c_void) {
    // SAFETY: `hint` is the `Box<Owned>` leaked in `external`, and Node calls the finalizer
    // once.
    let owned = unsafe { Box::from_raw(hint.cast::<Owned>()) };
    adjust(env, -(owned.parts().2 as i64));
}

/// Tells V8 how much memory its external strings hold outside its heap: without it a loop
/// of large results grew to 1.8 GB before a collection ran.
fn adjust(env: napi::sys::napi_env, change: i64) {
    let mut total = 0;
    // SAFETY: `env` is the environment the call or the finalizer was given.
    unsafe { napi::sys::napi_adjust_external_memory(env, change, &mut total) };
}

/// `text` as an external string, or the text back where the runtime has no such call or
/// refused before taking it.
fn external(
    env: napi::sys::napi_env,
    text: Owned,
) -> std::result::Result<napi::sys::napi_value, Owned> {
    let (data, units, bytes, which) = text.parts();
    let Some(create) = create_external(which) else {
        return Err(text);
    };
    adjust(env, bytes as i64);
    let hint = Box::into_raw(Box::new(text));
    let mut raw = std::ptr::null_mut();
    let mut copied = false;
    // SAFETY: `data` holds `units` valid Latin-1 bytes (ASCII) or UTF-16 units, alive and
    // unchanged until `release` runs: the text is owned by the finalizer from here on, and
    // moving a `String`/`Vec` into a box does not move its buffer.
    let status = unsafe {
        create(
            env,
            data,
            units as isize,
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
    adjust(env, -(bytes as i64));
    Err(text)
}
