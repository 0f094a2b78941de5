;;; claude-acp.el --- Claude Code in agent-shell through claude-acp -*- lexical-binding: t; -*-

;; agent-shell (https://github.com/xenodium/agent-shell) ships a Claude Code agent that runs the
;; TypeScript adapter `claude-agent-acp'.  Pointing its command at claude-acp is all it takes:
;; `M-x agent-shell-anthropic-start-claude-code' (or `M-x agent-shell' and pick Claude Code) then
;; runs Claude Code through claude-acp.  Put this in your init file after agent-shell is loaded.

(with-eval-after-load 'agent-shell
  ;; `cargo install --path .' puts claude-acp in ~/.cargo/bin.  Emacs started from a desktop
  ;; launcher may not have your shell's PATH: then give the absolute path, e.g.
  ;; (expand-file-name "~/.cargo/bin/claude-acp").
  (setq agent-shell-anthropic-claude-command '("claude-acp"))

  ;; Login-based auth (the default) uses claude's own login: run `claude-acp login' once in a
  ;; terminal.  agent-shell then starts the agent with ANTHROPIC_API_KEY set to "" so that a key
  ;; in Emacs' environment does not win over the login.  To use an API key instead:
  ;; (setq agent-shell-anthropic-authentication
  ;;       (agent-shell-anthropic-make-authentication :api-key (getenv "ANTHROPIC_API_KEY")))
  (setq agent-shell-anthropic-authentication
        (agent-shell-anthropic-make-authentication :login t))

  ;; Extra environment for claude-acp (and the claude it starts), e.g. logs for troubleshooting
  ;; (stdout is the protocol, so claude-acp never logs there) or a gateway:
  (setq agent-shell-anthropic-claude-environment
        (agent-shell-make-environment-variables
         "RUST_LOG" "info"
         ;; "ANTHROPIC_BASE_URL" "https://gateway.example.com"
         )))

;; Alternatively, keep the stock Claude Code agent and add claude-acp as an agent of its own:
;; M-x claude-acp-start opens it.
(defun claude-acp-agent-config ()
  "Agent-shell configuration for Claude Code through claude-acp."
  (agent-shell-make-agent-config
   :identifier 'claude-acp
   :mode-line-name "Claude (acp)"
   :buffer-name "Claude Code (claude-acp)"
   :shell-prompt "Claude> "
   :shell-prompt-regexp "Claude> "
   :client-maker (lambda (buffer)
                   (agent-shell--make-acp-client
                    :command "claude-acp"
                    :command-params '("--log-file" "/tmp/claude-acp.log")
                    :environment-variables nil
                    :context-buffer buffer))
   :install-instructions "cargo install --path . in a claude-acp checkout, then claude-acp login."))

(defun claude-acp-start ()
  "Start an agent-shell on Claude Code through claude-acp."
  (interactive)
  (agent-shell-start :config (claude-acp-agent-config)))

(provide 'claude-acp)
;;; claude-acp.el ends here
