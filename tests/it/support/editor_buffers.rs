//! A scripted editor's buffers for the editor-served file tools (issue 12): `fs/read_text_file`
//! answered from memory, `fs/write_text_file` changing the buffer only (as an editor does until the
//! user saves), each write recorded.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

use crate::support::acp_client::AcpClient;

/// Client capabilities that let claude-acp serve files through the editor.
pub fn fs_capabilities() -> Value {
    json!({"fs": {"readTextFile": true, "writeTextFile": true}, "terminal": false})
}

#[derive(Clone, Default)]
pub struct Buffers {
    files: Arc<Mutex<HashMap<String, String>>>,
    writes: Arc<Mutex<Vec<(String, String)>>>,
    /// A path whose `fs/write_text_file` the editor refuses (a read-only buffer).
    refused: Arc<Mutex<Option<String>>>,
}

impl Buffers {
    /// A buffer for `path` holding `text`.
    pub fn open(&self, path: &Path, text: &str) {
        self.files
            .lock()
            .unwrap()
            .insert(path.display().to_string(), text.to_owned());
    }

    /// Every `fs/write_text_file` so far: (path, content).
    pub fn writes(&self) -> Vec<(String, String)> {
        self.writes.lock().unwrap().clone()
    }

    /// From now on, refuses to write `path` (`None`: writes everything again).
    pub fn refuse_writes_to(&self, path: Option<&Path>) {
        *self.refused.lock().unwrap() = path.map(|p| p.display().to_string());
    }

    /// Answers the client's `fs/*` requests from these buffers from now on.
    pub fn serve(&self, c: &AcpClient) {
        let files = self.files.clone();
        c.on_request("fs/read_text_file", move |params| {
            let path = params["path"].as_str().unwrap_or_default();
            match files.lock().unwrap().get(path) {
                Some(text) => Ok(json!({"content": text})),
                None => Err((-32002, format!("no buffer for {path}"))),
            }
        });
        let (files, writes) = (self.files.clone(), self.writes.clone());
        let refused = self.refused.clone();
        c.on_request("fs/write_text_file", move |params| {
            let path = params["path"].as_str().unwrap_or_default().to_owned();
            if refused.lock().unwrap().as_deref() == Some(path.as_str()) {
                return Err((-32000, "the buffer is read-only".into()));
            }
            let content = params["content"].as_str().unwrap_or_default().to_owned();
            writes.lock().unwrap().push((path.clone(), content.clone()));
            files.lock().unwrap().insert(path, content);
            Ok(json!({}))
        });
    }
}
