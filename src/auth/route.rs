//! Where claude's API requests go: the environment's own route, or the editor's gateway once
//! `authenticate` set one. Every claude started after that gets the gateway's environment.

use crate::domain::Gateway;

/// The route shared by every session of this adapter process.
#[derive(Debug, Default)]
pub(crate) struct Route {
    gateway: std::sync::Mutex<Option<Gateway>>,
}

impl Route {
    pub(crate) fn set(&self, gateway: Gateway) {
        *self.gateway.lock().unwrap_or_else(|p| p.into_inner()) = Some(gateway);
    }

    /// What a claude started now gets on top of its environment (nothing without a gateway).
    pub(crate) fn env(&self) -> Vec<(String, String)> {
        match &*self.gateway.lock().unwrap_or_else(|p| p.into_inner()) {
            Some(g) => crate::claude::gateway::gateway_env(&g.base_url, &g.headers),
            None => Vec::new(),
        }
    }
}
