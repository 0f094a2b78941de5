//! The names claude knows the editor-served tools by (`mcp__acp__Read`, ...): a leaf that
//! translation, the permission wing and the tools themselves (`crate::editor_tools`) all read.

/// The server's name as claude knows it: its tools reach the model as `mcp__acp__Read`, ...
pub(crate) const SERVER_NAME: &str = "acp";

/// The file tools, by the built-in names the server serves them under.
pub(crate) const FILE_TOOLS: [&str; 3] = ["Read", "Write", "Edit"];

/// The terminal tools, by the built-in names the server serves them under: claude's command tool
/// (Bash, or PowerShell for claude for Windows) and TaskStop.
pub(crate) const TERMINAL_TOOLS: [&str; 3] = ["Bash", "PowerShell", "TaskStop"];

/// The tool's name on our server (`mcp__acp__Edit` -> `Edit`), whatever the tool.
fn served_name(tool_name: &str) -> Option<&str> {
    tool_name
        .strip_prefix("mcp__")?
        .strip_prefix(SERVER_NAME)?
        .strip_prefix("__")
}

/// The built-in a tool name of this server stands for (`mcp__acp__Bash` -> `Bash`).
pub(crate) fn builtin_name(tool_name: &str) -> Option<&'static str> {
    let tool = served_name(tool_name)?;
    FILE_TOOLS
        .into_iter()
        .chain(TERMINAL_TOOLS)
        .find(|name| *name == tool)
}

#[cfg(test)]
mod tests {
    use super::builtin_name;

    #[test]
    fn builtin_names_map_only_this_servers_tools() {
        assert_eq!(builtin_name("mcp__acp__Edit"), Some("Edit"));
        assert_eq!(builtin_name("mcp__acp__Read"), Some("Read"));
        assert_eq!(builtin_name("mcp__acp__Bash"), Some("Bash"));
        assert_eq!(builtin_name("mcp__acp__TaskStop"), Some("TaskStop"));
        assert_eq!(builtin_name("mcp__acp__PowerShell"), Some("PowerShell"));
        assert_eq!(builtin_name("mcp__acp__MultiEdit"), None);
        assert_eq!(builtin_name("mcp__acpx__Edit"), None);
        assert_eq!(builtin_name("mcp__other__Edit"), None);
        assert_eq!(builtin_name("Edit"), None);
    }
}
