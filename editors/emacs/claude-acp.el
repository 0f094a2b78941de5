;;; claude-acp.el --- Claude Code in agent-shell through claude-acp -*- lexical-binding: t; -*-

;;; Commentary:

;; agent-shell (https://github.com/xenodium/agent-shell) ships a Claude Code agent that runs the
;; TypeScript adapter `claude-agent-acp'.  This file points that agent at claude-acp, and also
;; adds "Claude Code (claude-acp)" as an agent of its own in `M-x agent-shell'.  Load it from your
;; init file (before or after agent-shell: the settings apply once agent-shell is loaded).
;;
;; Tested with agent-shell 0.63.6 in Emacs 30.1; see README.md for what each agent-shell
;; version needs.

;;; Code:

(require 'seq)

;; Defined by agent-shell; declared here so this file byte-compiles without it.
(defvar agent-shell-agent-configs)
(defvar agent-shell-anthropic-authentication)
(defvar agent-shell-anthropic-claude-acp-command)
(defvar agent-shell-anthropic-claude-command)
(defvar agent-shell-anthropic-claude-environment)
(defvar agent-shell-anthropic-default-session-mode-id)
(declare-function agent-shell-make-agent-config "agent-shell")
(declare-function agent-shell-make-environment-variables "agent-shell")
(declare-function agent-shell-start "agent-shell")
(declare-function agent-shell--make-acp-client "agent-shell")
(declare-function agent-shell-anthropic-make-authentication "agent-shell-anthropic")

(defvar claude-acp-command '("claude-acp")
  "Command line that starts claude-acp: the program, then its arguments.
`cargo install --path .' puts claude-acp in ~/.cargo/bin.  Emacs started
from a desktop launcher may not have your shell's PATH (agent-shell looks
the program up with `executable-find'): then give the absolute path, e.g.
\(list (expand-file-name \"~/.cargo/bin/claude-acp\")).")

(defvar claude-acp-environment
  '(;; claude 2.1.332 offers its TodoWrite/Task tools, which agent-shell shows as plans, only
    ;; with this set.
    "CLAUDE_CODE_ENABLE_TODO_TOOLS=1")
  "Extra environment for claude-acp and its claude, as \"NAME=value\" strings.
agent-shell adds these to Emacs' own environment, e.g.
\"ANTHROPIC_MODEL=sonnet\" for a default model or
\"ANTHROPIC_BASE_URL=https://gateway.example.com\" for a gateway.
claude-acp logs to stderr, which agent-shell shows in the shell's Notices,
or to the --log-file of `claude-acp-start'.  Its level is RUST_LOG's:
info unless set, and warn for agent-shell's own Claude Code agent (so
Notices holds only what you should act on) unless set here, e.g.
\"RUST_LOG=info\".")

(defun claude-acp--stock-environment ()
  "`claude-acp-environment' for agent-shell's own agent: warnings only on stderr."
  (if (seq-some (lambda (variable) (string-prefix-p "RUST_LOG=" variable))
                claude-acp-environment)
      claude-acp-environment
    (append claude-acp-environment '("RUST_LOG=warn"))))

(defvar claude-acp-default-session-mode-id nil
  "Mode the `claude-acp-start' agent switches to when a shell starts, or nil.
One of \"default\", \"acceptEdits\", \"plan\", \"bypassPermissions\".")

(defun claude-acp--use-in-stock-agent ()
  "Make agent-shell's own Claude Code agent run claude-acp."
  (if (boundp 'agent-shell-anthropic-claude-acp-command)
      ;; agent-shell from 19 February 2026 on (0.39.1 and later).  It refuses to start
      ;; Claude Code while the old variable below is non-nil, so it is left alone here.
      (setq agent-shell-anthropic-claude-acp-command claude-acp-command)
    ;; Older agent-shell only knows the old name.
    (setq agent-shell-anthropic-claude-command claude-acp-command))
  ;; Login-based auth (agent-shell's default) uses claude's own login: run `claude-acp login'
  ;; once in a terminal.  agent-shell then starts the agent with ANTHROPIC_API_KEY set to ""
  ;; so that a key in Emacs' environment does not win over the login.  To use a key instead:
  ;; (setq agent-shell-anthropic-authentication
  ;;       (agent-shell-anthropic-make-authentication :api-key (getenv "ANTHROPIC_API_KEY")))
  (setq agent-shell-anthropic-authentication
        (agent-shell-anthropic-make-authentication :login t))
  (setq agent-shell-anthropic-claude-environment (claude-acp--stock-environment))
  ;; Default mode for new shells ("default", "acceptEdits", "plan", "bypassPermissions"):
  ;; (setq agent-shell-anthropic-default-session-mode-id "acceptEdits")
  ;; Leave `agent-shell-anthropic-default-model-id' nil: agent-shell sets it with
  ;; session/set_model, which claude-acp does not implement (it offers the model as a config
  ;; option).  Choose the model with "ANTHROPIC_MODEL=sonnet" in `claude-acp-environment'.
  )

(defun claude-acp-agent-config ()
  "Agent-shell configuration for Claude Code through claude-acp, with a log file."
  (agent-shell-make-agent-config
   :identifier 'claude-acp
   :mode-line-name "Claude Code (claude-acp)"
   :buffer-name "Claude Code (claude-acp)"
   :shell-prompt "Claude> "
   :shell-prompt-regexp "Claude> "
   :client-maker
   (lambda (buffer)
     ;; `agent-shell--make-acp-client' is private to agent-shell (it may change without
     ;; notice); it is what agent-shell's own agents use, and it applies
     ;; `agent-shell-command-prefix' (containers).  The public `acp-make-client' takes the
     ;; same keys but skips that prefix.
     (agent-shell--make-acp-client
      :command (car claude-acp-command)
      :command-params (append (cdr claude-acp-command)
                              (list "--log-file"
                                    (expand-file-name "claude-acp.log"
                                                      temporary-file-directory)))
      :environment-variables claude-acp-environment
      :context-buffer buffer))
   :default-session-mode-id (lambda () claude-acp-default-session-mode-id)
   :install-instructions "cargo install --path . in a claude-acp checkout, then claude-acp login."))

(defun claude-acp--ours-p (entry)
  "Whether ENTRY of `agent-shell-agent-configs' is the claude-acp agent.
Since agent-shell 0.60.2 (July 2026) the list holds functions that make
a configuration (agent-shell calls each on every use), and configuration
alists only from older versions or a user's own setq."
  (if (functionp entry)
      (eq entry 'claude-acp-agent-config)
    (eq (alist-get :identifier entry) 'claude-acp)))

(defun claude-acp--register ()
  "Add the claude-acp agent to `agent-shell-agent-configs' (once).
A function where the list already holds functions (agent-shell 0.60.2
and later), so the entry follows later changes to the settings above; the
configuration itself otherwise, which every agent-shell takes."
  (setq agent-shell-agent-configs
        (cons (if (seq-some #'functionp agent-shell-agent-configs)
                  #'claude-acp-agent-config
                (claude-acp-agent-config))
              (seq-remove #'claude-acp--ours-p agent-shell-agent-configs))))

(defun claude-acp-start ()
  "Start an agent-shell on Claude Code through claude-acp."
  (interactive)
  (require 'agent-shell)
  (agent-shell-start :config (claude-acp-agent-config)))

(with-eval-after-load 'agent-shell
  (claude-acp--use-in-stock-agent)
  (claude-acp--register))

(provide 'claude-acp)
;;; claude-acp.el ends here
