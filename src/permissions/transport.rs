//! How claude asks this adapter for permission: the `--permission-transport` setting.

/// How claude asks for permission (see `docs/permissions.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PermissionTransport {
    /// Start on the stdio control channel; switch to MCP if it breaks.
    #[default]
    Auto,
    Stdio,
    Mcp,
}

impl std::str::FromStr for PermissionTransport {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "auto" => Ok(Self::Auto),
            "stdio" => Ok(Self::Stdio),
            "mcp" => Ok(Self::Mcp),
            other => Err(format!(
                "unknown permission transport `{other}` (expected auto, stdio or mcp)"
            )),
        }
    }
}
