//! Build script: napi link arguments for the Node addon only.
fn main() {
    // Only the Node addon needs napi's link arguments; `cargo test` builds without them.
    if std::env::var_os("CARGO_FEATURE_NODE").is_some() {
        napi_build::setup();
    }
}
