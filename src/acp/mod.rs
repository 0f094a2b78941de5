//! The editor side: ACP over stdio through the official SDK. The only module that imports it.
//! [`connection`] serves v1 ([`v1`]) or v2 ([`v2`]) as the editor's `initialize` chooses, once;
//! the two share only [`shared`] and the [`transport`], and neither imports the other.

/// Registers a handler for one request type, v1's or v2's, that answers from a task of its own
/// (`shared::reply::reply_later`; `Responder` and `HandlerError` are the caller's protocol's): the SDK's
/// dispatch loop never waits on claude or on the editor. Defined before the modules that use it.
macro_rules! spawned {
    ($builder:expr, $core:expr, |$c:ident, $req:ident: $Req:ty| -> $Resp:ty $body:block) => {
        $builder.on_receive_request(
            {
                let core = $core.clone();
                async move |$req: $Req, responder: Responder<$Resp>, _cx| {
                    let $c = core.clone();
                    reply_later(responder, async move {
                        let answer: Result<$Resp, HandlerError> = async move $body.await;
                        answer
                    });
                    Ok(())
                }
            },
            on_receive_request!(),
        )
    };
    // A session-opening request: `$answered` resolves once its answer is queued to the editor,
    // so what the session asks the editor afterwards (workspace trust) comes after it.
    ($builder:expr, $core:expr, $editor:expr,
     |$c:ident, $req:ident: $Req:ty, $answered:ident| -> $Resp:ty $body:block) => {
        $builder.on_receive_request(
            {
                let (core, editor) = ($core.clone(), $editor.clone());
                async move |$req: $Req, responder: Responder<$Resp>, _cx| {
                    let $c = core.clone();
                    let $answered = serde_json::to_value(responder.raw_id())
                        .ok()
                        .map(|id| editor.when_answered(id));
                    reply_later(responder, async move {
                        let answer: Result<$Resp, HandlerError> = async move $body.await;
                        answer
                    });
                    Ok(())
                }
            },
            on_receive_request!(),
        )
    };
}

mod connection;
#[cfg(any(test, feature = "fuzzing"))]
pub(crate) mod fuzzing;
mod shared;
mod transport;
mod v1;
mod v2;

/// The tracing target the SDK logs under (at trace level it logs whole messages).
pub const SDK_LOG_TARGET: &str = "agent_client_protocol";

#[cfg(test)]
mod tests;

pub(crate) use connection::{Connection, serve};

/// Which ACP versions the adapter speaks (`--protocol`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Protocol {
    /// v2 to an editor that asks for 2 or more at `initialize`, v1 to every other.
    #[default]
    Auto,
    /// v1 only: an editor asking for v2 is answered in v1 (and decides).
    V1,
    /// v2 only: an editor asking for v1 is refused (`-32022`, "Unsupported protocol version").
    V2,
}
