-- Drives lsp-count from a real Neovim 0.7 (headless): open a Python model that imports a
-- sibling project file, read its code lenses, then open that file, change it and :write it,
-- and read the model's lenses again (the server counts the model again on didSave).
-- Environment: LSP_COUNT_CMD (JSON list), LSP_COUNT_FILE (the model), LSP_COUNT_OTHER (the
-- imported file), LSP_COUNT_OUT.
local file = os.getenv("LSP_COUNT_FILE")
local other = os.getenv("LSP_COUNT_OTHER")
local out = os.getenv("LSP_COUNT_OUT")
local result = { errors = {}, publishes = 0 }
local helpers = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/python_helpers.lua")

local ok, err = pcall(function()
  local model_uri = vim.uri_from_fname(file)
  local client_id, ready = helpers.start(file, {
    handlers = {
      ["textDocument/publishDiagnostics"] = helpers.count_publishes(model_uri, result),
    },
  })
  result.initialized = ready
  vim.wait(20000, function() return result.publishes >= 1 end, 20)
  local model_buf = vim.api.nvim_get_current_buf()
  result.before = helpers.lenses(model_uri, result)
  vim.cmd("edit " .. vim.fn.fnameescape(other))
  vim.lsp.buf_attach_client(0, client_id)
  vim.api.nvim_buf_set_lines(0, 0, 1, false, { "WIDTH = 16" })
  local seen = result.publishes
  vim.cmd("write")
  vim.wait(20000, function() return result.publishes > seen end, 20)
  vim.api.nvim_set_current_buf(model_buf)
  result.after = helpers.lenses(model_uri, result)
end)
helpers.finish(ok, err, result, out)
