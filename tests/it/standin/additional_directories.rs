//! `additionalDirectories` with the stand-in as claude: advertised; the request's roots and those of
//! `_meta` reach claude as `--add-dir`, each once, on new, load, resume and fork; `session/list`
//! reports them for open sessions; relative or missing roots are refused with invalid_params.

use std::path::PathBuf;
use std::time::Duration;

use crate::support::history::{FIXTURE_SESSION_ID, install_fixture};
use crate::support::standin::Standin;
use serde_json::json;

fn add_dirs(argv: &[String]) -> Vec<String> {
    argv.windows(2)
        .filter(|w| w[0] == "--add-dir")
        .map(|w| w[1].clone())
        .collect()
}

fn roots(s: &Standin) -> (PathBuf, PathBuf) {
    let (a, b) = (s.dir().join("shared"), s.dir().join("docs"));
    std::fs::create_dir_all(&a).unwrap();
    std::fs::create_dir_all(&b).unwrap();
    (a, b)
}

#[tokio::test]
async fn every_root_reaches_claude_once_and_is_listed() {
    let s = Standin::new("text");
    let (a, b) = roots(&s);
    let c = s.adapter(&[]);
    let init = c.initialize().await;
    assert_eq!(
        init["agentCapabilities"]["sessionCapabilities"]["additionalDirectories"],
        json!({})
    );
    let opened = c
        .request(
            "session/new",
            json!({"cwd": s.work, "mcpServers": [], "additionalDirectories": [a],
                   "_meta": {"additionalRoots": [b, a],
                             "claudeCode": {"options": {"additionalDirectories": [b]}}}}),
        )
        .await
        .unwrap();
    let id = opened["sessionId"].as_str().unwrap().to_owned();
    s.wait_started(1, Duration::from_secs(10)).await;
    let expected = vec![
        a.to_str().unwrap().to_owned(),
        b.to_str().unwrap().to_owned(),
    ];
    assert_eq!(add_dirs(&s.argvs()[0]), expected);

    s.store_conversation(&id, "hello");
    let list = c
        .request("session/list", json!({"cwd": s.work}))
        .await
        .unwrap();
    assert_eq!(list["sessions"][0]["sessionId"], json!(id));
    assert_eq!(
        list["sessions"][0]["additionalDirectories"],
        json!(expected)
    );
}

#[tokio::test]
async fn load_resume_and_fork_pass_the_roots() {
    let s = Standin::new("text");
    let (a, _) = roots(&s);
    install_fixture(&s.config_dir(), &s.work, FIXTURE_SESSION_ID);
    let c = s.adapter(&[]);
    c.initialize().await;
    for (n, method) in ["session/load", "session/resume", "session/fork"]
        .iter()
        .enumerate()
    {
        c.request(
            method,
            json!({"sessionId": FIXTURE_SESSION_ID, "cwd": s.work, "mcpServers": [],
                   "additionalDirectories": [a]}),
        )
        .await
        .unwrap_or_else(|e| panic!("{method}: {e:?}"));
        s.wait_started(n + 1, Duration::from_secs(10)).await;
        assert_eq!(
            add_dirs(&s.argvs()[n]),
            vec![a.to_str().unwrap().to_owned()],
            "{method}"
        );
    }
}

#[tokio::test]
async fn relative_or_missing_roots_are_refused() {
    let s = Standin::new("text");
    let c = s.adapter(&[]);
    c.initialize().await;
    let missing = s.dir().join("not-there");
    for (dirs, says) in [
        (json!(["relative/dir"]), "must be an absolute path"),
        (json!([missing]), "is not an existing directory"),
    ] {
        let err = c
            .request(
                "session/new",
                json!({"cwd": s.work, "mcpServers": [], "additionalDirectories": dirs}),
            )
            .await
            .expect_err("refused");
        assert_eq!(err.code, -32602);
        assert!(err.message.contains(says), "{}", err.message);
    }
    let err = c
        .request(
            "session/new",
            json!({"cwd": s.work, "mcpServers": [], "_meta": {"additionalRoots": [missing]}}),
        )
        .await
        .expect_err("a missing _meta root is refused too");
    assert_eq!(err.code, -32602);
    assert!(s.pids().is_empty(), "no claude was started");
}
