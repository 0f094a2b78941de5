//! A recording stub editor: answers from a script, remembers every ask.

use std::collections::VecDeque;
use std::path::Path;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;

use super::super::{Decision, SessionRules, decide};
use crate::claude::wire::CanUseTool;
use crate::domain::{
    EditorClient, EditorError, ElicitationOutcome, ElicitationRequest, PermissionAsk,
    PermissionOutcome, SessionUpdate,
};

#[derive(Default)]
pub struct StubEditor {
    pub forms_supported: bool,
    answers: Mutex<VecDeque<Result<PermissionOutcome, EditorError>>>,
    form_answers: Mutex<VecDeque<Result<ElicitationOutcome, EditorError>>>,
    pub asks: Mutex<Vec<PermissionAsk>>,
    pub forms: Mutex<Vec<ElicitationRequest>>,
}

impl StubEditor {
    /// An editor without forms that answers prompts in this order (then: connection closed).
    pub fn answering(answers: Vec<Result<PermissionOutcome, EditorError>>) -> Arc<Self> {
        Arc::new(Self {
            answers: Mutex::new(answers.into()),
            ..Self::default()
        })
    }

    /// An editor with form elicitation that answers forms, then prompts, in order.
    pub fn with_forms(
        forms: Vec<Result<ElicitationOutcome, EditorError>>,
        answers: Vec<Result<PermissionOutcome, EditorError>>,
    ) -> Arc<Self> {
        Arc::new(Self {
            forms_supported: true,
            answers: Mutex::new(answers.into()),
            form_answers: Mutex::new(forms.into()),
            ..Self::default()
        })
    }

    pub fn asks(&self) -> Vec<PermissionAsk> {
        self.asks.lock().unwrap().clone()
    }

    pub fn forms(&self) -> Vec<ElicitationRequest> {
        self.forms.lock().unwrap().clone()
    }

    /// The option names of the `n`-th prompt.
    pub fn option_names(&self, n: usize) -> Vec<String> {
        self.asks()[n]
            .options
            .iter()
            .map(|o| o.name.clone())
            .collect()
    }
}

#[async_trait]
impl EditorClient for StubEditor {
    fn session_update(&self, _session_id: &str, _update: SessionUpdate) {}

    async fn request_permission(
        &self,
        ask: PermissionAsk,
    ) -> Result<PermissionOutcome, EditorError> {
        self.asks.lock().unwrap().push(ask);
        self.answers
            .lock()
            .unwrap()
            .pop_front()
            .unwrap_or(Err(EditorError::Closed))
    }

    fn supports_elicitation(&self) -> bool {
        self.forms_supported
    }

    async fn elicit(&self, request: ElicitationRequest) -> Result<ElicitationOutcome, EditorError> {
        self.forms.lock().unwrap().push(request);
        self.form_answers
            .lock()
            .unwrap()
            .pop_front()
            .unwrap_or(Err(EditorError::Closed))
    }
}

pub fn pick(option_id: &str) -> Result<PermissionOutcome, EditorError> {
    Ok(PermissionOutcome::Selected {
        option_id: option_id.into(),
    })
}

/// Runs one ask in `/srv` with fresh session rules.
pub async fn run(editor: &Arc<StubEditor>, req: CanUseTool) -> Decision {
    run_with(editor, req, &SessionRules::new()).await
}

pub async fn run_with(editor: &Arc<StubEditor>, req: CanUseTool, rules: &SessionRules) -> Decision {
    decide(editor.clone(), "sess-1", Path::new("/srv"), req, rules).await
}
