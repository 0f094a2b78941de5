//! One editor's connection: the editor the sessions talk to, and the serving of ACP on it in the
//! version the editor's `initialize` chooses (v1's handlers or v2's, each of which sets the form
//! the editor is written to in). The one place that knows both versions.

use std::sync::Arc;

use agent_client_protocol::{Agent, ConnectTo as _, Error, Lines};

use super::shared::client::AcpEditor;
use super::transport::Transport;
use super::{Protocol, v1, v2};
use crate::domain::AgentCore;

/// The editor at the other end of a transport, before it is served: the sessions are given
/// [`Connection::editor`] to talk to, then [`serve`] serves the transport.
pub(crate) struct Connection {
    editor: Arc<AcpEditor>,
    transport: Transport,
}

impl Connection {
    /// The editor on this process's stdin and stdout.
    pub(crate) fn stdio() -> Self {
        Self::new(Transport::stdio())
    }

    pub(crate) fn new(transport: Transport) -> Self {
        Connection {
            editor: AcpEditor::new(&transport, v1::editor::form),
            transport,
        }
    }

    pub(crate) fn editor(&self) -> Arc<AcpEditor> {
        self.editor.clone()
    }
}

/// Serves ACP on the connection until the editor's input ends, in the version `protocol` allows
/// and the editor's `initialize` asks for.
pub(crate) async fn serve(
    core: Arc<dyn AgentCore>,
    connection: Connection,
    protocol: Protocol,
) -> Result<(), Error> {
    let Connection { editor, transport } = connection;
    let (outgoing, incoming) = transport.into_lines();
    let lines = Lines::new(outgoing, incoming);
    let v2 = || v2::server::agent(core.clone(), editor.clone());
    match protocol {
        Protocol::V1 => {
            v1::server::agent(core.clone(), editor.clone())
                .connect_to(lines)
                .await
        }
        Protocol::V2 => v2().connect_to(lines).await,
        Protocol::Auto => {
            Agent
                .protocol_router()
                .with_v1(v1::server::agent(core.clone(), editor.clone()))
                .with_v2(v2())
                .connect_to(lines)
                .await
        }
    }
}
