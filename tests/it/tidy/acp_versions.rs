//! ACP v1 and v2 stand apart: `src/acp/v1/` names nothing of `src/acp/v2/` and the other way
//! round, and what both use (`src/acp/shared/`, the transport) names neither. Only
//! `src/acp/connection.rs` and `src/acp/mod.rs` see both.

use super::rust_files;

/// Whether `code` names our module `src/acp/<module>`: by path (`crate::acp::v2::…`,
/// `super::v2::…`, which `super::super::v2` contains) or in a group (`use super::{v1, v2}`).
/// The SDK's own `agent_client_protocol::v2` is another crate's, and not this.
fn names_acp_module(code: &str, module: &str) -> bool {
    let compact: String = code.chars().filter(|c| !c.is_whitespace()).collect();
    let by_path = ["crate::acp::", "super::"].iter().any(|prefix| {
        [":", ";", ",", "}"]
            .iter()
            .any(|after| compact.contains(&format!("{prefix}{module}{after}")))
    });
    let in_group = ["crate::acp::{", "super::{"].iter().any(|prefix| {
        compact.match_indices(prefix).any(|(at, _)| {
            let group = &compact[at + prefix.len()..];
            let group = &group[..group.find('}').unwrap_or(group.len())];
            group.split([',', '{', ':']).any(|name| name == module)
        })
    });
    by_path || in_group
}

#[test]
fn acp_v1_and_v2_import_each_other_nothing_and_what_they_share_neither() {
    // Each version is one folder; what both use is in `src/acp/shared/` (and the transport),
    // which knows neither; only `src/acp/connection.rs` (and `mod.rs`) see both.
    let rules: [(&str, &[&str]); 4] = [
        ("src/acp/v1/", &["v2"]),
        ("src/acp/v2/", &["v1"]),
        ("src/acp/shared/", &["v1", "v2"]),
        ("src/acp/transport/", &["v1", "v2"]),
    ];
    let mut offenders = Vec::new();
    for (dir, not) in rules {
        let files = rust_files(dir);
        assert!(!files.is_empty(), "{dir} holds no Rust file");
        for (name, text) in files {
            let code: String = text
                .lines()
                .filter(|line| !line.trim_start().starts_with("//"))
                .collect::<Vec<_>>()
                .join("\n");
            for module in not {
                if names_acp_module(&code, module) {
                    offenders.push(format!("{name} -> {module}"));
                }
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "v1 and v2 share only src/acp/shared/: {offenders:?}"
    );
}
