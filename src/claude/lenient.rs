//! Reading the fields of claude's lines that the adapter does not strictly need, so that a shape we
//! did not expect (a `null` list, a number where a string was) costs that field, never the line:
//! a skipped `result` line leaves the editor's prompt unanswered.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer};

/// Any shape: what does not fit `T` (null included) is `T::default()`. For small fields only: the
/// value is read as generic JSON first.
pub(crate) fn any_shape<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: DeserializeOwned + Default,
{
    let value = serde_json::Value::deserialize(deserializer)?;
    Ok(serde_json::from_value(value).unwrap_or_default())
}

/// `null` as `T::default()` (a null list is empty), read straight into `T`: for large fields such
/// as message content, which must not be copied through generic JSON.
pub(crate) fn null_as_default<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Ok(Option::<T>::deserialize(deserializer)?.unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use crate::claude::wire::ClaudeMessage;

    #[test]
    fn a_result_of_any_unexpected_shape_is_still_a_result() {
        for line in [
            r#"{"type":"result","subtype":"success","is_error":false,"permission_denials":null,"errors":null}"#,
            r#"{"type":"result","subtype":null,"is_error":"no","result":7,"usage":"x","modelUsage":[1],"permission_denials":{"a":1},"total_cost_usd":"free","new_field":{"x":[]}}"#,
            r#"{"type":"result"}"#,
        ] {
            let parsed = ClaudeMessage::parse(line);
            assert!(
                matches!(parsed, Ok(ClaudeMessage::Result(_))),
                "{line}: {parsed:?}"
            );
        }
    }

    #[test]
    fn null_lists_and_fields_in_other_messages_are_empty() {
        let assistant = r#"{"type":"assistant","message":{"id":null,"model":5,"content":null,"stop_reason":[],"usage":null},"session_id":3,"aborted":null,"tool_use_meta":"x","parent_tool_use_id":{}}"#;
        match ClaudeMessage::parse(assistant) {
            Ok(ClaudeMessage::Assistant(a)) => assert!(a.message.content.is_empty()),
            other => panic!("{other:?}"),
        }
        let system = r#"{"type":"system","subtype":null,"session_id":5}"#;
        assert!(matches!(
            ClaudeMessage::parse(system),
            Ok(ClaudeMessage::System(_))
        ));
        let user = r#"{"type":"user","message":{"content":null},"tool_use_result":null}"#;
        assert!(matches!(
            ClaudeMessage::parse(user),
            Ok(ClaudeMessage::User(_))
        ));
    }
}
