//! The Zed registry entry (`editors/zed/registry/agent.json`) against the registry's own schema
//! (vendored beside it) and rules, and the release archives it names against those the release
//! workflow builds and `cargo binstall` downloads: a renamed archive or a target dropped on one
//! side fails here, not on a user's machine.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use crate::support::json_schema;

fn read(relative: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(relative);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {relative}: {e}"))
}

fn agent() -> Value {
    serde_json::from_str(&read("editors/zed/registry/agent.json")).expect("agent.json is JSON")
}

/// `key = "value"` from Cargo.toml's `[package]` table.
fn package_field(key: &str) -> String {
    let manifest = read("Cargo.toml");
    let package = manifest
        .split("\n[")
        .next()
        .expect("Cargo.toml starts with [package]");
    package
        .lines()
        .find_map(|line| {
            let (k, v) = line.split_once(" = ")?;
            (k == key).then(|| v.trim_matches('"').to_owned())
        })
        .unwrap_or_else(|| panic!("[package] has no {key}"))
}

/// `pkg-url` of Cargo.toml's binstall metadata: the default, then each target's override.
fn binstall_urls() -> (String, BTreeMap<String, String>) {
    let manifest = read("Cargo.toml");
    let mut default = None;
    let mut overrides = BTreeMap::new();
    let mut table = String::new();
    for line in manifest.lines() {
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            table = name.to_owned();
        } else if let Some(url) = line.strip_prefix("pkg-url = ") {
            let url = url.trim_matches('"').to_owned();
            match table.strip_prefix("package.metadata.binstall.overrides.") {
                Some(target) => {
                    overrides.insert(target.to_owned(), url);
                }
                None if table == "package.metadata.binstall" => default = Some(url),
                None => panic!("pkg-url in [{table}]"),
            }
        }
    }
    (
        default.expect("[package.metadata.binstall] pkg-url"),
        overrides,
    )
}

/// One target of release.yml's build matrix.
#[derive(Debug)]
struct Build {
    target: String,
    ext: String,
}

/// The build matrix of `.github/workflows/release.yml` (one `- { target: .., ext: .. }` line per
/// target) and the archive-name line of the script it packs with.
fn release_builds() -> (Vec<Build>, String) {
    let workflow = read(".github/workflows/release.yml");
    let builds = workflow
        .lines()
        .filter_map(|line| {
            let entry = line.trim().strip_prefix("- { target: ")?;
            let entry = format!("target: {entry}");
            let fields: BTreeMap<&str, &str> = entry
                .trim_end_matches(" }")
                .split(", ")
                .filter_map(|field| field.split_once(": "))
                .collect();
            Some(Build {
                target: fields["target"].to_owned(),
                ext: fields["ext"].to_owned(),
            })
        })
        .collect();
    // The workflow packs with scripts/release-archives, which names the archives.
    assert!(
        workflow.contains("scripts/release-archives --pack-only"),
        "release.yml packs its archives with scripts/release-archives"
    );
    let archive = read("scripts/release-archives")
        .lines()
        .map(str::trim)
        .find(|line| line.starts_with("archive="))
        .expect("scripts/release-archives names its archive in one archive= line")
        .to_owned();
    (builds, archive)
}

/// The registry's platform name for a Rust target (`darwin-aarch64` for `aarch64-apple-darwin`).
fn registry_platform(target: &str) -> Option<String> {
    let arch = target.split('-').next()?;
    let os = match target {
        t if t.ends_with("-apple-darwin") => "darwin",
        t if t.ends_with("-pc-windows-msvc") => "windows",
        t if t.ends_with("-unknown-linux-gnu") => "linux",
        _ => return None,
    };
    Some(format!("{os}-{arch}"))
}

#[test]
fn agent_json_follows_the_registry_schema() {
    let schema: Value = serde_json::from_str(&read("editors/zed/registry/agent.schema.json"))
        .expect("the schema is JSON");
    let problems = json_schema::violations(&schema, &agent());
    assert!(problems.is_empty(), "agent.json: {problems:#?}");
}

#[test]
fn agent_json_follows_the_registry_rules() {
    // What the registry's CI checks beyond the schema (.github/workflows/build_registry.py there).
    let agent = agent();
    let version = package_field("version");
    assert_eq!(
        agent["version"],
        version.as_str(),
        "agent.json's version is the crate's"
    );
    assert_eq!(
        agent["repository"],
        package_field("repository").as_str(),
        "agent.json's repository is Cargo.toml's"
    );
    let binary = agent["distribution"]["binary"].as_object().unwrap();
    for family in ["darwin", "linux", "windows"] {
        assert!(
            binary.keys().any(|p| p.starts_with(family)),
            "a binary distribution covers every OS; {family} is missing"
        );
    }
    for (platform, entry) in binary {
        let url = entry["archive"].as_str().unwrap();
        assert!(!url.contains("/latest/"), "{platform}: {url} uses /latest/");
        assert!(
            url.contains(&format!("/download/v{version}/")),
            "{platform}: {url} is not the release of version {version}"
        );
    }
}

#[test]
fn archives_are_the_ones_the_release_builds_and_binstall_fetches() {
    let (builds, archive_line) = release_builds();
    assert_eq!(
        archive_line, "archive=\"claude-acp-$version-$target.$ext\"",
        "the release archives' name changed: update agent.json, binstall and this test together"
    );
    let version = package_field("version");
    let repository = package_field("repository");
    let archive_url = |build: &Build| {
        format!(
            "{repository}/releases/download/v{version}/claude-acp-{version}-{}.{}",
            build.target, build.ext
        )
    };
    let targets: Vec<&str> = builds.iter().map(|b| b.target.as_str()).collect();
    for wanted in [
        "aarch64-apple-darwin",
        "x86_64-apple-darwin",
        "x86_64-pc-windows-msvc",
        "x86_64-unknown-linux-gnu",
        "aarch64-unknown-linux-gnu",
    ] {
        assert!(targets.contains(&wanted), "release.yml builds no {wanted}");
    }

    // Every registry platform that release.yml builds is in agent.json, with that build's archive.
    let agent = agent();
    let binary = agent["distribution"]["binary"].as_object().unwrap();
    let mut expected = BTreeMap::new();
    for build in &builds {
        if let Some(platform) = registry_platform(&build.target) {
            expected.insert(platform, archive_url(build));
        }
    }
    let listed: BTreeMap<String, String> = binary
        .iter()
        .map(|(platform, entry)| (platform.clone(), entry["archive"].as_str().unwrap().into()))
        .collect();
    assert_eq!(listed, expected, "agent.json's archives are release.yml's");
    for (platform, entry) in binary {
        let program = if platform.starts_with("windows") {
            "./claude-acp.exe"
        } else {
            "./claude-acp"
        };
        assert_eq!(
            entry["cmd"], program,
            "{platform}: the archive holds the binary at its top"
        );
    }

    // cargo binstall expands the same names for every target release.yml builds.
    let (default_url, overrides) = binstall_urls();
    for build in &builds {
        let template = overrides.get(&build.target).unwrap_or(&default_url);
        let url = template
            .replace("{ repo }", &repository)
            .replace("{ version }", &version)
            .replace("{ name }", "claude-acp")
            .replace("{ target }", &build.target);
        assert_eq!(
            url,
            archive_url(build),
            "binstall's URL for {}",
            build.target
        );
    }
}
