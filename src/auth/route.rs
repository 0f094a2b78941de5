//! Where claude's API requests go: the environment's own route, or the editor's gateway once
//! `authenticate` or `providers/set` set one (until `providers/disable` or `logout` drops it).
//! Every claude started after a change gets the route's environment.

use crate::claude::gateway::VERTEX_DEFAULT_URL;
use crate::domain::{ApiKind, Gateway, ProviderRoute};

/// The route shared by every session of this adapter process.
#[derive(Debug, Default)]
pub(crate) struct Route {
    gateway: std::sync::Mutex<Option<Gateway>>,
}

impl Route {
    /// Sets the editor's gateway, or drops it (`None`); whether that changed the route.
    pub(crate) fn set(&self, gateway: Option<Gateway>) -> bool {
        let mut slot = self.gateway.lock().unwrap_or_else(|p| p.into_inner());
        let changed = *slot != gateway;
        *slot = gateway;
        changed
    }

    /// What a claude started now gets on top of its environment (nothing without a gateway).
    pub(crate) fn env(&self) -> Vec<(String, String)> {
        match &*self.gateway.lock().unwrap_or_else(|p| p.into_inner()) {
            Some(g) => crate::claude::gateway::gateway_env(g),
            None => Vec::new(),
        }
    }

    /// The route as `providers/list` shows it: the gateway's API and URL, else what the
    /// environment tells claude.
    pub(crate) fn shown(&self) -> ProviderRoute {
        if let Some(g) = &*self.gateway.lock().unwrap_or_else(|p| p.into_inner()) {
            return ProviderRoute {
                api: g.api,
                base_url: g.base_url.clone(),
            };
        }
        environment_route(|key| std::env::var(key).ok().filter(|v| !v.is_empty()))
    }
}

/// The route claude takes from its environment (`var` reads one variable).
fn environment_route(var: impl Fn(&str) -> Option<String>) -> ProviderRoute {
    let on = |key: &str| var(key).is_some_and(|v| v != "0" && v != "false");
    let (api, base_url) = if on("CLAUDE_CODE_USE_BEDROCK") {
        let region = var("AWS_REGION").unwrap_or_else(|| "us-east-1".into());
        (
            ApiKind::Bedrock,
            var("ANTHROPIC_BEDROCK_BASE_URL")
                .unwrap_or_else(|| format!("https://bedrock-runtime.{region}.amazonaws.com")),
        )
    } else if on("CLAUDE_CODE_USE_VERTEX") {
        (
            ApiKind::Vertex,
            var("ANTHROPIC_VERTEX_BASE_URL").unwrap_or_else(|| VERTEX_DEFAULT_URL.into()),
        )
    } else {
        (
            ApiKind::Anthropic,
            var("ANTHROPIC_BASE_URL").unwrap_or_else(|| "https://api.anthropic.com".into()),
        )
    };
    ProviderRoute { api, base_url }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn route_of(vars: &[(&str, &str)]) -> ProviderRoute {
        environment_route(|key| {
            vars.iter()
                .find(|(k, _)| *k == key)
                .map(|(_, v)| (*v).to_owned())
        })
    }

    #[test]
    fn the_environment_s_route_is_claude_s_pick_among_anthropic_bedrock_and_vertex() {
        assert_eq!(
            route_of(&[]),
            ProviderRoute {
                api: ApiKind::Anthropic,
                base_url: "https://api.anthropic.com".into()
            }
        );
        assert_eq!(
            route_of(&[("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")]).base_url,
            "http://127.0.0.1:9"
        );
        let bedrock = route_of(&[
            ("CLAUDE_CODE_USE_BEDROCK", "1"),
            ("AWS_REGION", "eu-west-1"),
        ]);
        assert_eq!(bedrock.api, ApiKind::Bedrock);
        assert_eq!(
            bedrock.base_url,
            "https://bedrock-runtime.eu-west-1.amazonaws.com"
        );
        assert_eq!(
            route_of(&[("CLAUDE_CODE_USE_VERTEX", "1")]),
            ProviderRoute {
                api: ApiKind::Vertex,
                base_url: VERTEX_DEFAULT_URL.into()
            }
        );
        assert_eq!(
            route_of(&[("CLAUDE_CODE_USE_BEDROCK", "0")]).api,
            ApiKind::Anthropic
        );
    }

    #[test]
    fn setting_the_same_gateway_again_changes_nothing_and_dropping_it_does() {
        let route = Route::default();
        let gateway = Gateway {
            base_url: "https://gw.example.com".into(),
            ..Gateway::default()
        };
        assert!(route.set(Some(gateway.clone())));
        assert!(!route.set(Some(gateway)));
        assert!(!route.env().is_empty());
        assert!(route.set(None));
        assert!(route.env().is_empty());
    }
}
