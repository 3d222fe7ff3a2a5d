-- Drives lsp-count from a real Neovim 0.7 (headless) on a Python model file with the server's
-- progress bar shown at once (LSP_COUNT_PROGRESS_AFTER_MS=0): records each $/progress value
-- Neovim receives (passing it on to Neovim's own handler), and what Neovim keeps of the bar
-- once the analysis has published its diagnostics. Writes what it saw as JSON.
-- Environment: LSP_COUNT_CMD (JSON list), LSP_COUNT_FILE, LSP_COUNT_OUT.
local file = os.getenv("LSP_COUNT_FILE")
local out = os.getenv("LSP_COUNT_OUT")
local result = { errors = {}, publishes = 0, values = {}, kept = {} }
local helpers = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/python_helpers.lua")
local neovims = vim.lsp.handlers["$/progress"]

local ok, err = pcall(function()
  local client_id, ready = helpers.start(file, {
    handlers = {
      ["$/progress"] = function(e, params, ctx, config)
        table.insert(result.values, params.value)
        return neovims(e, params, ctx, config)
      end,
      ["textDocument/publishDiagnostics"] = helpers.count_publishes(vim.uri_from_fname(file), result),
    },
  })
  result.initialized = ready
  vim.wait(20000, function() return result.publishes >= 1 end, 20)
  vim.wait(5000, function()
    local last = result.values[#result.values]
    return last ~= nil and last.kind == "end"
  end, 20)
  for _, bar in pairs(vim.lsp.get_client_by_id(client_id).messages.progress) do
    table.insert(result.kept, { title = bar.title, message = bar.message, done = bar.done == true })
  end
end)
helpers.finish(ok, err, result, out)
