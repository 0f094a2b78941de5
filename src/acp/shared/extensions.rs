//! The `_`-prefixed requests claude-acp answers beyond ACP's own methods, in the wire form of the
//! TypeScript adapter (clients written for it work unchanged): `_session/steering`, a message
//! injected into the running turn, and `_session/async_task/stop`, one background job stopped.

use agent_client_protocol::v1::schema as acp;
use agent_client_protocol::{JsonRpcRequest, JsonRpcResponse};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::from_proto;
use crate::domain::{AgentError, IdleBehavior, PromptBlock, SteerOutcome};

/// The steering method's name, as the TypeScript adapter and the ACP steering proposal spell it.
pub(crate) const STEERING_METHOD: &str = "_session/steering";

/// `_session/steering` `{sessionId, prompt, _meta?.steering.idleBehavior}`, its params kept as
/// they came so that every fault in them gets an invalid-params error naming it.
#[derive(Debug, Clone, Serialize, Deserialize, JsonRpcRequest)]
#[request(method = "_session/steering", response = SteeringResponse)]
pub(crate) struct SteeringRequest(Value);

/// Its answer: `{"outcome": "injected" | "promptRequired" | "startedNewTurn", "reason"?}`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonRpcResponse)]
pub(crate) struct SteeringResponse(Value);

/// A steering request as the session takes it.
#[derive(Debug)]
pub(crate) struct Steer {
    pub(crate) session_id: String,
    pub(crate) blocks: Vec<PromptBlock>,
    pub(crate) idle: IdleBehavior,
}

impl SteeringRequest {
    pub(crate) fn parse(self) -> Result<Steer, AgentError> {
        let bad = |why: &str| AgentError::InvalidParams(format!("{STEERING_METHOD}: {why}"));
        let Value::Object(params) = self.0 else {
            return Err(bad("params must be an object"));
        };
        let session_id = params
            .get("sessionId")
            .and_then(Value::as_str)
            .filter(|id| !id.is_empty())
            .ok_or_else(|| bad("params require a non-empty sessionId"))?
            .to_owned();
        let prompt = params
            .get("prompt")
            .and_then(Value::as_array)
            .filter(|blocks| !blocks.is_empty())
            .ok_or_else(|| bad("params require a non-empty prompt array"))?;
        let blocks: Vec<acp::ContentBlock> = serde_json::from_value(Value::Array(prompt.clone()))
            .map_err(|e| bad(&format!("prompt: {e}")))?;
        let idle = match params
            .get("_meta")
            .and_then(|meta| meta.get("steering"))
            .and_then(|steering| steering.get("idleBehavior"))
        {
            None | Some(Value::Null) => IdleBehavior::StartNewTurn,
            Some(Value::String(behavior)) if behavior == "promptRequired" => {
                IdleBehavior::PromptRequired
            }
            Some(_) => return Err(bad("unsupported steering idleBehavior")),
        };
        Ok(Steer {
            session_id,
            blocks: from_proto::prompt_blocks(blocks),
            idle,
        })
    }
}

impl From<SteerOutcome> for SteeringResponse {
    fn from(outcome: SteerOutcome) -> Self {
        SteeringResponse(match outcome {
            SteerOutcome::Injected => json!({"outcome": "injected"}),
            SteerOutcome::PromptRequired => {
                json!({"outcome": "promptRequired", "reason": "noRunningTurn"})
            }
            SteerOutcome::StartedNewTurn => json!({"outcome": "startedNewTurn"}),
        })
    }
}

/// `InitializeResponse._meta.steering`: the request above is served.
pub(crate) fn steering_meta() -> Value {
    json!({ "supported": true })
}

/// The method that stops one of claude's background jobs without cancelling the turn.
pub(crate) const ASYNC_TASK_STOP_METHOD: &str = "_session/async_task/stop";

/// `_session/async_task/stop` `{sessionId, asyncTaskId}`: the job's id is claude's task id, which
/// the job's tool call carries in `_meta.claudeCode.asyncTaskId`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonRpcRequest)]
#[request(method = "_session/async_task/stop", response = AsyncTaskStopResponse)]
pub(crate) struct AsyncTaskStopRequest(Value);

/// Its answer: `{"stopped": bool}` (false: claude knows no such running job).
#[derive(Debug, Clone, Serialize, Deserialize, JsonRpcResponse)]
pub(crate) struct AsyncTaskStopResponse(Value);

impl AsyncTaskStopRequest {
    /// `(sessionId, asyncTaskId)`, each non-empty.
    pub(crate) fn parse(self) -> Result<(String, String), AgentError> {
        let bad = |why: &str| AgentError::InvalidParams(format!("{ASYNC_TASK_STOP_METHOD}: {why}"));
        let Value::Object(params) = self.0 else {
            return Err(bad("params must be an object"));
        };
        let field = |key: &str| {
            params
                .get(key)
                .and_then(Value::as_str)
                .map(str::trim)
                .filter(|v| !v.is_empty())
                .map(str::to_owned)
        };
        let session =
            field("sessionId").ok_or_else(|| bad("params require a non-empty sessionId"))?;
        let task =
            field("asyncTaskId").ok_or_else(|| bad("params require a non-empty asyncTaskId"))?;
        Ok((session, task))
    }
}

impl AsyncTaskStopResponse {
    pub(crate) fn stopped(stopped: bool) -> Self {
        AsyncTaskStopResponse(json!({ "stopped": stopped }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(params: Value) -> Result<Steer, AgentError> {
        SteeringRequest(params).parse()
    }

    #[test]
    fn steering_params_are_read_as_the_typescript_adapter_defines_them() {
        let text = json!([{"type": "text", "text": "go left"}]);
        let cases: &[(Value, Result<IdleBehavior, &str>)] = &[
            (
                json!({"sessionId": "s", "prompt": text}),
                Ok(IdleBehavior::StartNewTurn),
            ),
            (
                json!({"sessionId": "s", "prompt": text, "_meta": {"steering": {"idleBehavior": "promptRequired"}}}),
                Ok(IdleBehavior::PromptRequired),
            ),
            (
                json!({"sessionId": "s", "prompt": text, "_meta": {"other": 1}}),
                Ok(IdleBehavior::StartNewTurn),
            ),
            (
                json!({"sessionId": "s", "prompt": text, "_meta": {"steering": {"idleBehavior": "queue"}}}),
                Err("unsupported steering idleBehavior"),
            ),
            (json!({"prompt": text}), Err("non-empty sessionId")),
            (
                json!({"sessionId": "", "prompt": text}),
                Err("non-empty sessionId"),
            ),
            (
                json!({"sessionId": "s", "prompt": []}),
                Err("non-empty prompt array"),
            ),
            (
                json!({"sessionId": "s", "prompt": "go left"}),
                Err("non-empty prompt array"),
            ),
            (
                json!({"sessionId": "s", "prompt": [{"type": "nope"}]}),
                Err("prompt:"),
            ),
            (json!(["s"]), Err("params must be an object")),
        ];
        for (params, want) in cases {
            match (parse(params.clone()), want) {
                (Ok(steer), Ok(idle)) => {
                    assert_eq!(steer.idle, *idle, "{params}");
                    assert_eq!(steer.session_id, "s");
                    assert_eq!(steer.blocks, [PromptBlock::Text("go left".into())]);
                }
                (Err(AgentError::InvalidParams(message)), Err(part)) => {
                    assert!(message.contains(part), "{params}: {message}");
                    assert!(message.starts_with("_session/steering: "), "{message}");
                }
                (got, want) => panic!("{params}: got {got:?}, want {want:?}"),
            }
        }
    }

    #[test]
    fn async_task_stop_params_need_a_session_and_a_task() {
        let parse = |v: Value| AsyncTaskStopRequest(v).parse();
        assert_eq!(
            parse(json!({"sessionId": "s", "asyncTaskId": " b1 "})).unwrap(),
            ("s".to_owned(), "b1".to_owned())
        );
        for (params, part) in [
            (json!({"asyncTaskId": "b1"}), "non-empty sessionId"),
            (
                json!({"sessionId": "s", "asyncTaskId": "  "}),
                "non-empty asyncTaskId",
            ),
            (json!({"sessionId": "s"}), "non-empty asyncTaskId"),
            (json!(null), "params must be an object"),
        ] {
            match parse(params.clone()) {
                Err(AgentError::InvalidParams(m)) => assert!(m.contains(part), "{params}: {m}"),
                other => panic!("{params}: {other:?}"),
            }
        }
        assert_eq!(
            serde_json::to_value(AsyncTaskStopResponse::stopped(true)).unwrap(),
            json!({"stopped": true})
        );
    }

    #[test]
    fn outcomes_have_the_typescript_adapters_wire_form() {
        let wire = |o| serde_json::to_value(SteeringResponse::from(o)).unwrap();
        assert_eq!(wire(SteerOutcome::Injected), json!({"outcome": "injected"}));
        assert_eq!(
            wire(SteerOutcome::PromptRequired),
            json!({"outcome": "promptRequired", "reason": "noRunningTurn"})
        );
        assert_eq!(
            wire(SteerOutcome::StartedNewTurn),
            json!({"outcome": "startedNewTurn"})
        );
    }
}
