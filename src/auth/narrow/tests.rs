use super::*;

fn model(value: &str, resolved: Option<&str>) -> ModelInfo {
    serde_json::from_value(serde_json::json!({"value": value, "resolvedModel": resolved}))
        .expect("a model")
}

/// claude's own list, as the pinned claude's `initialize` reply gives it.
fn claude_models() -> Vec<ModelInfo> {
    vec![
        model("default", Some("claude-opus-5-5")),
        model("opus", Some("claude-opus-5-5")),
        model("opus[1m]", Some("claude-opus-5-5[1m]")),
        model("sonnet", Some("claude-sonnet-5-5")),
        model("haiku", Some("claude-haiku-5-5")),
    ]
}

fn values(models: &[ModelInfo]) -> Vec<&str> {
    models.iter().map(|m| m.value.as_str()).collect()
}

fn listed(ids: &[&str], region_prefix: Option<&str>) -> Listed {
    Listed {
        ids: ids.iter().map(|id| (*id).to_owned()).collect(),
        region_prefix: region_prefix.map(str::to_owned),
    }
}

#[test]
fn claude_s_models_are_narrowed_to_those_listed_in_any_spelling() {
    let cases: &[(&[&str], &[&str])] = &[
        (
            &["claude-sonnet-5-5-20260101", "claude-haiku-5-5"],
            &["sonnet", "haiku"],
        ),
        (&["claude-opus-5-5"], &["default", "opus", "opus[1m]"]),
        (
            &["claude-opus-5.5@20260101"],
            &["default", "opus", "opus[1m]"],
        ),
        (&["anthropic/claude-haiku-5-5:batch"], &["haiku"]),
        (&["CLAUDE-SONNET-5-5-FAST"], &["sonnet"]),
        (&["us.anthropic.claude-sonnet-5-5-v1:0"], &["sonnet"]),
        // None of claude's models: nothing is offered.
        (&["gpt-5", "claude-2"], &[]),
        (&[], &[]),
    ];
    for (ids, expected) in cases {
        let narrowed = narrow(&claude_models(), &listed(ids, None));
        assert_eq!(values(&narrowed), *expected, "listed {ids:?}");
    }
}

#[test]
fn a_model_known_only_by_its_alias_stays_when_its_family_is_listed() {
    let models = vec![
        model("default", None),
        model("opus", None),
        model("haiku", None),
        model("claude-sonnet-5-5", None),
    ];
    let narrowed = narrow(
        &models,
        &listed(&["claude-sonnet-5-5", "claude-opus-5-5"], None),
    );
    assert_eq!(values(&narrowed), ["default", "opus", "claude-sonnet-5-5"]);
    // `default` kept for lacking an id does not count as a match: nothing is served.
    let narrowed = narrow(
        &[model("default", None)],
        &listed(&["claude-opus-5-5"], None),
    );
    assert!(narrowed.is_empty());
}

#[test]
fn under_a_bedrock_region_prefix_models_resolved_under_another_are_dropped() {
    let models = vec![
        model("default", Some("eu.anthropic.claude-opus-5-5-v1:0")),
        model("sonnet", Some("us.anthropic.claude-sonnet-5-5-v1:0")),
        model("haiku", Some("eu.anthropic.claude-haiku-5-5-v1:0")),
    ];
    let listing = listed(
        &[
            "eu.anthropic.claude-opus-5-5-v1:0",
            "eu.anthropic.claude-sonnet-5-5-v1:0",
            "eu.anthropic.claude-haiku-5-5-v1:0",
        ],
        Some("eu"),
    );
    assert_eq!(values(&narrow(&models, &listing)), ["default", "haiku"]);
}

#[test]
fn model_ids_are_compared_without_what_only_spells_them_differently() {
    let cases = [
        ("claude-sonnet-5[1m]", "claude-sonnet-5"),
        ("claude-sonnet-5-1m", "claude-sonnet-5"),
        ("global.anthropic.claude-opus-5-5-v2", "claude-opus-5-5"),
        (
            "arn:aws:bedrock:eu-west-1::foundation-model/anthropic.claude-haiku-5-5-v1:0",
            "claude-haiku-5-5",
        ),
        ("anthropic/openai/gpt-5", "openai/gpt-5"),
        ("claude-opus-4.5", "claude-opus-4-5"),
        ("claude-opus-5-5-20260101", "claude-opus-5-5"),
        ("Claude-Opus-5-5-fast", "claude-opus-5-5"),
        ("claude-opus-5-5:free", "claude-opus-5-5"),
        ("model[x]", "model[x]"),
    ];
    for (id, expected) in cases {
        assert_eq!(normalized(id), expected, "{id}");
    }
}
