-- CodeCompanion.nvim (https://github.com/olimorris/codecompanion.nvim) with Claude Code through
-- claude-acp. Put this in your CodeCompanion setup (lazy.nvim: the `opts` or `config` of the
-- plugin spec), then `:CodeCompanionChat` opens a chat with Claude Code.
require("codecompanion").setup({
  adapters = {
    acp = {
      -- A new ACP adapter built on CodeCompanion's own `claude_code` one (same roles, vision,
      -- message handling); only the command and the authentication change.
      claude_acp = function()
        return require("codecompanion.adapters").extend("claude_code", {
          name = "claude_acp",
          formatted_name = "Claude Code (claude-acp)",
          commands = {
            -- `cargo install --path .` puts claude-acp in ~/.cargo/bin. Neovim passes its own
            -- environment on, so `claude` and your login or ANTHROPIC_API_KEY are found as in
            -- your shell. Use an absolute path if Neovim was started without your shell's PATH.
            default = { "claude-acp" },
            -- A second command you can pick with `ga` / the adapter menu: logs to a file.
            with_log = { "claude-acp", "--log-file", "/tmp/claude-acp.log" },
          },
          -- claude-acp uses claude's own login (`claude-acp login`) or ANTHROPIC_API_KEY from the
          -- environment. The stock adapter lists these variables by name, and CodeCompanion passes
          -- an unset one on as its own name (ANTHROPIC_API_KEY="ANTHROPIC_API_KEY"), which claude
          -- would take for a key. Functions return nil when a variable is unset, so nothing is
          -- passed and the real environment (or your login) is used.
          env = {
            ANTHROPIC_API_KEY = function()
              return os.getenv("ANTHROPIC_API_KEY")
            end,
            CLAUDE_CODE_OAUTH_TOKEN = function()
              return os.getenv("CLAUDE_CODE_OAUTH_TOKEN")
            end,
          },
          handlers = {
            auth = function(_self)
              return true
            end,
          },
          defaults = {
            -- Your CodeCompanion MCP servers, handed to claude for each session.
            mcpServers = "inherit_from_config",
            -- claude can take a few seconds to start on a cold machine.
            timeout = 30000,
          },
        })
      end,
    },
  },
  interactions = {
    chat = {
      adapter = "claude_acp",
    },
  },
})
