-- CodeCompanion.nvim (https://github.com/olimorris/codecompanion.nvim) with Claude Code through
-- claude-acp. Put this in your CodeCompanion setup (lazy.nvim: the `opts` or `config` of the
-- plugin spec), then `:CodeCompanionChat` opens a chat with Claude Code.
-- Needs CodeCompanion 17.33 or later (`interactions`); checked against 19.22.0.
require("codecompanion").setup({
  adapters = {
    acp = {
      -- A new ACP adapter built on CodeCompanion's own `claude_code` one (same roles, vision,
      -- message handling); the command, environment and authentication change.
      claude_acp = function()
        return require("codecompanion.adapters").extend("claude_code", {
          name = "claude_acp",
          formatted_name = "Claude Code (claude-acp)",
          commands = {
            -- `cargo install --path .` puts claude-acp in ~/.cargo/bin. Neovim passes its own
            -- environment on, so `claude` and your login or ANTHROPIC_API_KEY are found as in
            -- your shell. Use an absolute path if Neovim was started without your shell's PATH.
            default = { "claude-acp" },
            -- Logs to a file. Pick it with `:CodeCompanionChat adapter=claude_acp command=with_log`
            -- or the `/command` slash command in the chat buffer.
            with_log = { "claude-acp", "--log-file", (os.getenv("TMPDIR") or "/tmp") .. "/claude-acp.log" },
          },
          -- claude-acp uses claude's own login (`claude-acp login`) or ANTHROPIC_API_KEY from the
          -- environment. The stock adapter lists CLAUDE_CODE_OAUTH_TOKEN by name, and CodeCompanion
          -- passes an unset one on as its own name (CLAUDE_CODE_OAUTH_TOKEN="CLAUDE_CODE_OAUTH_TOKEN"),
          -- which claude would take for a token. Functions return nil when a variable is unset, so
          -- nothing is passed and the real environment (or your login) is used.
          env = {
            ANTHROPIC_API_KEY = function()
              return os.getenv("ANTHROPIC_API_KEY")
            end,
            CLAUDE_CODE_OAUTH_TOKEN = function()
              return os.getenv("CLAUDE_CODE_OAUTH_TOKEN")
            end,
            -- claude 2.1.332 offers its TodoWrite/Task tools (CodeCompanion shows them as a
            -- plan) only with this set.
            CLAUDE_CODE_ENABLE_TODO_TOOLS = function()
              return "1"
            end,
          },
          handlers = {
            -- claude-acp needs no `authenticate` call: a missing login shows on the first prompt
            -- as claude-acp's `auth_required` error ("Not logged in").
            auth = function(_self)
              return true
            end,
          },
          defaults = {
            -- Your CodeCompanion MCP servers, handed to claude for each session.
            mcpServers = "inherit_from_config",
            -- claude can take a few seconds to start on a cold machine.
            timeout = 30000,
            -- Default mode and model (CodeCompanion 19.10 or later), matched against the
            -- config options claude-acp offers: mode default / acceptEdits / plan /
            -- bypassPermissions, model default / sonnet / opus / haiku (as your claude lists them).
            -- session_config_options = {
            --   mode = "acceptEdits",
            --   model = "sonnet",
            -- },
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
