//! Our ajv-compatible validator agrees with the `jsonschema` crate on what is valid, and every
//! tool schema is itself valid JSON Schema.

use clarvis_agent_tools::config::Compat;
use clarvis_agent_tools::{schema, tools};
use proptest::prelude::*;
use serde_json::{json, Map, Value};

fn arb_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-3i64..3000).prop_map(|n| json!(n)),
        (-2.5f64..2.5).prop_map(|f| json!(f)),
        "[a-z_]{0,6}".prop_map(Value::String),
        prop::sample::select(vec!["content", "count", "files_with_matches", "x"])
            .prop_map(|s| json!(s)),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
            prop::collection::vec((arb_key(), inner), 0..5)
                .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

fn arb_key() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "path",
        "pattern",
        "offset",
        "limit",
        "content",
        "old_string",
        "new_string",
        "replace_all",
        "edits",
        "patch",
        "command",
        "cwd",
        "timeout_ms",
        "output_mode",
        "head_limit",
        "context",
        "glob",
        "extra",
    ])
    .prop_map(str::to_string)
}

#[test]
fn tool_schemas_are_valid_json_schema() {
    for t in tools::all() {
        let strict = tools::schema_of(t, Compat::V01);
        let relaxed = tools::schema_of(t, Compat::Latest);
        for s in [strict, relaxed] {
            assert!(
                jsonschema::meta::is_valid(s),
                "{} schema is not valid JSON Schema",
                t.name
            );
        }
        assert_eq!(strict["additionalProperties"], json!(false), "{}", t.name);
        assert!(relaxed.get("additionalProperties").is_none(), "{}", t.name);
    }
}

proptest! {
    #[test]
    fn validator_agrees_with_jsonschema(v in arb_value(), tool in any::<prop::sample::Index>(), strict in any::<bool>()) {
        let def = &tools::all()[tool.index(tools::all().len())];
        let s = tools::schema_of(def, if strict { Compat::V01 } else { Compat::Latest });
        let mut copy = v.clone();
        let ours = schema::validate(s, &mut copy).is_empty();
        prop_assert_eq!(ours, jsonschema::is_valid(s, &v), "tool {} value {}", def.name, v);
    }
}
