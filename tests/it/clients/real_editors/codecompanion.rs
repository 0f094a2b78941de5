//! Neovim (0.10 or later) with CodeCompanion and plenary.nvim as pinned, and
//! `editors/neovim/codecompanion.lua` as the whole CodeCompanion setup.
