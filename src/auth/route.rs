//! Where claude's API requests go: the environment's own route, or the editor's gateway once
//! `authenticate` or `providers/set` set one (until `providers/disable` or `logout` drops it),
//! with the models `providers/set` found the gateway lists. Every claude started after a change
//! gets the route's environment, and every session offers the models the route serves.

use super::listing::{self, Get, Listed};
use super::narrow::narrow;
use crate::claude::gateway::VERTEX_DEFAULT_URL;
use crate::claude::wire::ModelInfo;
use crate::domain::{AgentError, ApiKind, Gateway, MAIN_PROVIDER, ProviderRoute};

/// The editor's gateway, and what it lists when `providers/set` listed it.
#[derive(Debug, Clone, PartialEq)]
struct Routed {
    gateway: Gateway,
    listed: Option<Listed>,
}

/// The route shared by every session of this adapter process.
#[derive(Debug, Default)]
pub(crate) struct Route {
    routed: std::sync::Mutex<Option<Routed>>,
    /// `providers/set|disable` one at a time, in the order they came: a listing in flight must
    /// not land after the change that came behind it.
    changes: tokio::sync::Mutex<()>,
}

impl Route {
    /// Sets the editor's gateway as `authenticate` does (not listed: the listing `providers/set`
    /// made of the same gateway is kept), or drops it (`None`); whether that changed the route.
    pub(crate) fn set(&self, gateway: Option<Gateway>) -> bool {
        let listed = self
            .lock()
            .as_ref()
            .filter(|r| Some(&r.gateway) == gateway.as_ref())
            .and_then(|r| r.listed.clone());
        self.replace(gateway.map(|gateway| Routed { gateway, listed }))
    }

    /// `providers/set`: the gateway's models are listed first (the same gateway set again keeps
    /// its listing), and a listing that fails changes nothing. Whether the route changed.
    pub(crate) async fn set_provider(
        &self,
        gateway: Gateway,
        http: &impl Get,
    ) -> Result<bool, AgentError> {
        let _one_at_a_time = self.changes.lock().await;
        let known = self
            .lock()
            .as_ref()
            .filter(|r| r.gateway == gateway && r.listed.is_some())
            .map(|r| r.listed.clone());
        let listed = match known {
            Some(listed) => listed,
            None => listing::list(&gateway, http).await.map_err(|e| {
                AgentError::Internal(format!(
                    "Model discovery for provider \"{MAIN_PROVIDER}\" failed: {}",
                    e.0
                ))
            })?,
        };
        tracing::info!(
            listed = listed.as_ref().map(|l| l.ids.len()),
            region_prefix = listed.as_ref().and_then(|l| l.region_prefix.as_deref()),
            "the provider's models"
        );
        Ok(self.replace(Some(Routed { gateway, listed })))
    }

    /// `providers/disable`: the environment's route again, after any change in flight.
    pub(crate) async fn disable_provider(&self) -> bool {
        let _one_at_a_time = self.changes.lock().await;
        self.replace(None)
    }

    fn replace(&self, routed: Option<Routed>) -> bool {
        let mut slot = self.lock();
        let changed = *slot != routed;
        *slot = routed;
        changed
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Routed>> {
        self.routed.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// What a claude started now gets on top of its environment (nothing without a gateway).
    pub(crate) fn env(&self) -> Vec<(String, String)> {
        match &*self.lock() {
            Some(r) => crate::claude::gateway::gateway_env(
                &r.gateway,
                r.listed.as_ref().and_then(|l| l.region_prefix.as_deref()),
            ),
            None => Vec::new(),
        }
    }

    /// The models of claude's `models` a session offers on this route: those the gateway
    /// listed, or all of them (`None`: the route does not narrow them).
    pub(crate) fn offered_models(&self, models: &[ModelInfo]) -> Option<Vec<ModelInfo>> {
        let routed = self.lock();
        let listed = routed.as_ref()?.listed.as_ref()?;
        Some(narrow(models, listed))
    }

    /// The route as `providers/list` shows it: the gateway's API and URL, else what the
    /// environment tells claude.
    pub(crate) fn shown(&self) -> ProviderRoute {
        if let Some(r) = &*self.lock() {
            return ProviderRoute {
                api: r.gateway.api,
                base_url: r.gateway.base_url.clone(),
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

    /// A gateway listing `claude-haiku-5-5`, or failing with 500 once `down`; counts its GETs.
    #[derive(Default)]
    struct ListingGateway {
        down: std::sync::atomic::AtomicBool,
        gets: std::sync::atomic::AtomicUsize,
    }

    impl Get for ListingGateway {
        async fn get(&self, _: &str, _: &[(String, String)]) -> Result<listing::Answer, String> {
            use std::sync::atomic::Ordering::SeqCst;
            self.gets.fetch_add(1, SeqCst);
            let (status, body) = match self.down.load(SeqCst) {
                true => (500, "down"),
                false => (
                    200,
                    r#"{"data": [{"id": "claude-haiku-5-5"}], "has_more": false}"#,
                ),
            };
            Ok(listing::Answer {
                status,
                body: body.into(),
            })
        }
    }

    #[test]
    fn a_provider_s_listing_narrows_the_models_until_the_provider_is_disabled() {
        use std::sync::atomic::Ordering::SeqCst;
        let models: Vec<ModelInfo> = serde_json::from_str(
            r#"[{"value": "default", "resolvedModel": "claude-opus-5-5"},
                {"value": "haiku", "resolvedModel": "claude-haiku-5-5"}]"#,
        )
        .unwrap();
        let offered = |route: &Route| {
            route
                .offered_models(&models)
                .map(|m| m.into_iter().map(|m| m.value).collect::<Vec<_>>())
        };
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        let route = Route::default();
        let http = ListingGateway::default();
        let gateway = Gateway {
            base_url: "http://gw.example".into(),
            headers: vec![("X-Key".into(), "k1".into())],
            ..Gateway::default()
        };
        assert_eq!(
            offered(&route),
            None,
            "the environment's route narrows nothing"
        );
        assert!(
            runtime
                .block_on(route.set_provider(gateway.clone(), &http))
                .unwrap()
        );
        assert_eq!(offered(&route), Some(vec!["haiku".to_owned()]));
        // The same gateway again: its listing is kept, not read again; so after authenticate.
        assert!(
            !runtime
                .block_on(route.set_provider(gateway.clone(), &http))
                .unwrap()
        );
        assert!(!route.set(Some(gateway.clone())));
        assert_eq!(http.gets.load(SeqCst), 1);
        assert_eq!(offered(&route), Some(vec!["haiku".to_owned()]));
        // A listing that fails (new headers: read again) changes nothing.
        http.down.store(true, SeqCst);
        let mut rotated = gateway;
        rotated.headers[0].1 = "k2".into();
        let error = runtime
            .block_on(route.set_provider(rotated, &http))
            .unwrap_err();
        assert_eq!(
            error.to_string(),
            "Model discovery for provider \"main\" failed: Model listing GET /v1/models returned 500: down"
        );
        assert!(route.env().iter().any(|(_, v)| v == "X-Key: k1"));
        assert_eq!(offered(&route), Some(vec!["haiku".to_owned()]));
        assert!(runtime.block_on(route.disable_provider()));
        assert_eq!(offered(&route), None);
    }
}
