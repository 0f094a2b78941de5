//! claude's environment for the editor's gateway (`authenticate` with `_meta.gateway`, or
//! `providers/set`): the API it speaks (Anthropic's, Bedrock's or Vertex's) at its URL, its
//! headers, and no other route or login, so that claude neither asks for one nor sends the user's
//! own key to the gateway. The same variables as the TypeScript adapter's. The headers may hold
//! secrets: they go into the child's environment only, never its argv.

use crate::domain::{ApiKind, Gateway};

/// The bearer token claude sends the gateway in place of a login (the gateway authenticates the
/// user by its own headers).
pub(crate) const TOKEN_PLACEHOLDER: &str = "acp-proxy";

/// Vertex's own endpoint: claude is not told it, since naming even the default host makes claude
/// treat the route as a custom deployment and hide models it would offer.
pub(crate) const VERTEX_DEFAULT_URL: &str = "https://aiplatform.googleapis.com";

/// Every variable that picks claude's route or login, cleared before the gateway's are set.
const ROUTE_VARIABLES: &[&str] = &[
    "ANTHROPIC_BASE_URL",
    "ANTHROPIC_BEDROCK_BASE_URL",
    "ANTHROPIC_VERTEX_BASE_URL",
    "ANTHROPIC_VERTEX_PROJECT_ID",
    "CLOUD_ML_REGION",
    "AWS_REGION",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "CLAUDE_CODE_OAUTH_TOKEN",
];

/// The variables to set on claude for `gateway`; `region_prefix`: the Bedrock cross-region
/// prefix of the models the gateway listed, which claude then calls them under.
pub(crate) fn gateway_env(gateway: &Gateway, region_prefix: Option<&str>) -> Vec<(String, String)> {
    let custom_headers = gateway
        .headers
        .iter()
        .map(|(name, value)| format!("{name}: {value}"))
        .collect::<Vec<_>>()
        .join("\n");
    let mut env: Vec<(&str, String)> = ROUTE_VARIABLES
        .iter()
        .map(|key| (*key, String::new()))
        .collect();
    env.push(("CLAUDE_CODE_USE_BEDROCK", "0".into()));
    env.push(("CLAUDE_CODE_USE_VERTEX", "0".into()));
    let mut set = |key: &'static str, value: String| match env.iter_mut().find(|(k, _)| *k == key) {
        Some(slot) => slot.1 = value,
        None => env.push((key, value)),
    };
    set("ANTHROPIC_CUSTOM_HEADERS", custom_headers);
    match gateway.api {
        ApiKind::Anthropic => {
            set("ANTHROPIC_BASE_URL", gateway.base_url.clone());
            set("ANTHROPIC_AUTH_TOKEN", TOKEN_PLACEHOLDER.into());
        }
        ApiKind::Bedrock => {
            set("CLAUDE_CODE_USE_BEDROCK", "1".into());
            set("ANTHROPIC_BEDROCK_BASE_URL", gateway.base_url.clone());
            // In place of the local AWS credentials claude would look for.
            set("AWS_BEARER_TOKEN_BEDROCK", TOKEN_PLACEHOLDER.into());
            if let Some(prefix) = region_prefix {
                set("ANTHROPIC_BEDROCK_REGION_PREFIX", prefix.to_owned());
            }
        }
        ApiKind::Vertex => {
            set("CLAUDE_CODE_USE_VERTEX", "1".into());
            if gateway.base_url.trim_end_matches('/') != VERTEX_DEFAULT_URL {
                set("ANTHROPIC_VERTEX_BASE_URL", gateway.base_url.clone());
            }
            if let Some(target) = &gateway.vertex {
                set("ANTHROPIC_VERTEX_PROJECT_ID", target.project_id.clone());
                set("CLOUD_ML_REGION", target.region.clone());
            }
        }
    }
    env.into_iter()
        .map(|(key, value)| (key.to_owned(), value))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_gateway_is_claude_s_api_with_its_headers_and_no_other_login() {
        let env = gateway_env(
            &Gateway {
                base_url: "https://gw.example.com/anthropic".into(),
                headers: vec![
                    ("X-Team".into(), "blue".into()),
                    ("Authorization".into(), "Bearer t0k3n".into()),
                ],
                ..Gateway::default()
            },
            None,
        );
        let get = |key: &str| env.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str());
        assert_eq!(
            get("ANTHROPIC_BASE_URL"),
            Some("https://gw.example.com/anthropic")
        );
        assert_eq!(
            get("ANTHROPIC_CUSTOM_HEADERS"),
            Some("X-Team: blue\nAuthorization: Bearer t0k3n")
        );
        assert_eq!(get("ANTHROPIC_AUTH_TOKEN"), Some(TOKEN_PLACEHOLDER));
        assert_eq!(get("ANTHROPIC_API_KEY"), Some(""));
        assert_eq!(get("CLAUDE_CODE_USE_BEDROCK"), Some("0"));
    }

    fn get<'a>(env: &'a [(String, String)], key: &str) -> Option<&'a str> {
        env.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    #[test]
    fn a_bedrock_gateway_is_claude_s_bedrock_route_at_its_url_with_no_aws_login() {
        let env = gateway_env(
            &Gateway {
                api: ApiKind::Bedrock,
                base_url: "https://gw.example.com/bedrock".into(),
                headers: vec![("X-Team".into(), "blue".into())],
                vertex: None,
            },
            Some("eu"),
        );
        assert_eq!(get(&env, "CLAUDE_CODE_USE_BEDROCK"), Some("1"));
        assert_eq!(get(&env, "ANTHROPIC_BEDROCK_REGION_PREFIX"), Some("eu"));
        assert_eq!(get(&env, "CLAUDE_CODE_USE_VERTEX"), Some("0"));
        assert_eq!(
            get(&env, "ANTHROPIC_BEDROCK_BASE_URL"),
            Some("https://gw.example.com/bedrock")
        );
        assert_eq!(
            get(&env, "AWS_BEARER_TOKEN_BEDROCK"),
            Some(TOKEN_PLACEHOLDER)
        );
        assert_eq!(get(&env, "ANTHROPIC_CUSTOM_HEADERS"), Some("X-Team: blue"));
        assert_eq!(get(&env, "ANTHROPIC_BASE_URL"), Some(""));
        assert_eq!(get(&env, "ANTHROPIC_AUTH_TOKEN"), Some(""));
    }

    #[test]
    fn a_vertex_gateway_names_its_project_and_region_and_its_url_only_when_not_vertex_s_own() {
        let target = crate::domain::VertexTarget {
            project_id: "proj-1".into(),
            region: "europe-west4".into(),
        };
        let own = gateway_env(
            &Gateway {
                api: ApiKind::Vertex,
                base_url: VERTEX_DEFAULT_URL.into(),
                headers: Vec::new(),
                vertex: Some(target.clone()),
            },
            None,
        );
        assert_eq!(get(&own, "CLAUDE_CODE_USE_VERTEX"), Some("1"));
        assert_eq!(get(&own, "ANTHROPIC_VERTEX_PROJECT_ID"), Some("proj-1"));
        assert_eq!(get(&own, "CLOUD_ML_REGION"), Some("europe-west4"));
        assert_eq!(get(&own, "ANTHROPIC_VERTEX_BASE_URL"), Some(""));
        let custom = gateway_env(
            &Gateway {
                api: ApiKind::Vertex,
                base_url: "https://gw.example.com/vertex".into(),
                headers: Vec::new(),
                vertex: Some(target),
            },
            None,
        );
        assert_eq!(
            get(&custom, "ANTHROPIC_VERTEX_BASE_URL"),
            Some("https://gw.example.com/vertex")
        );
    }
}
