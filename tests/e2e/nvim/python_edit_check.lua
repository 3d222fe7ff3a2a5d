-- Drives lsp-count from a real Neovim 0.7 (headless) on a Python model file: open it, read
-- the code lenses, then edit the buffer (two lines added at the top, MLP's width halved) and
-- read them again, as the server re-analyses from what it kept. Writes what it saw as JSON.
-- Environment: LSP_COUNT_CMD (JSON list), LSP_COUNT_FILE, LSP_COUNT_OUT.
local file = os.getenv("LSP_COUNT_FILE")
local out = os.getenv("LSP_COUNT_OUT")
local result = { errors = {}, publishes = 0 }
local helpers = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/python_helpers.lua")

local ok, err = pcall(function()
  local _, ready = helpers.start(file, {
    flags = { debounce_text_changes = 0 },
    handlers = { ["textDocument/publishDiagnostics"] = helpers.count_publishes(vim.uri_from_fname(file), result) },
  })
  result.initialized = ready
  vim.wait(20000, function() return result.publishes >= 1 end, 20)
  local uri = vim.uri_from_bufnr(0)
  result.before = helpers.lenses(uri, result)
  -- The edit, as a user makes it: lines added above everything, then a change inside MLP.
  vim.api.nvim_buf_set_lines(0, 0, 0, false, { "# notes", "" })
  for i, text in ipairs(vim.api.nvim_buf_get_lines(0, 0, -1, false)) do
    if text:find("4 * config.n_embd", 1, true) then  -- MLP's two layers
      vim.api.nvim_buf_set_lines(0, i - 1, i, false, { (text:gsub("4 %* config.n_embd", "2 * config.n_embd")) })
    end
  end
  local seen = result.publishes
  vim.wait(20000, function() return result.publishes > seen end, 20)
  result.after = helpers.lenses(uri, result)
end)
helpers.finish(ok, err, result, out)
