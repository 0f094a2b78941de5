//! claude's environment for the editor's gateway (`authenticate` with `_meta.gateway`): the
//! Anthropic API at its URL, its headers, and no other login, so that claude neither asks for one
//! nor sends the user's own key to the gateway. The same variables as the TypeScript adapter's.
//! The headers may hold secrets: they go into the child's environment only, never its argv.

/// The bearer token claude sends the gateway in place of a login (the gateway authenticates the
/// user by its own headers).
const TOKEN_PLACEHOLDER: &str = "acp-proxy";

/// The variables to set on claude for a gateway at `base_url` with `headers`.
pub(crate) fn gateway_env(base_url: &str, headers: &[(String, String)]) -> Vec<(String, String)> {
    let custom_headers = headers
        .iter()
        .map(|(name, value)| format!("{name}: {value}"))
        .collect::<Vec<_>>()
        .join("\n");
    [
        ("ANTHROPIC_BASE_URL", base_url),
        ("ANTHROPIC_AUTH_TOKEN", TOKEN_PLACEHOLDER),
        ("ANTHROPIC_CUSTOM_HEADERS", &custom_headers),
        // Any other route or login of the environment is off.
        ("ANTHROPIC_API_KEY", ""),
        ("CLAUDE_CODE_OAUTH_TOKEN", ""),
        ("CLAUDE_CODE_USE_BEDROCK", "0"),
        ("CLAUDE_CODE_USE_VERTEX", "0"),
    ]
    .into_iter()
    .map(|(key, value)| (key.to_owned(), value.to_owned()))
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_gateway_is_claude_s_api_with_its_headers_and_no_other_login() {
        let env = gateway_env(
            "https://gw.example.com/anthropic",
            &[
                ("X-Team".into(), "blue".into()),
                ("Authorization".into(), "Bearer t0k3n".into()),
            ],
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
}
