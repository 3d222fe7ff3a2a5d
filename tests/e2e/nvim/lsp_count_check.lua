-- Drives lsp-count from a real Neovim 0.7 (headless): start the server, open a config,
-- collect pushed diagnostics, hover on "model_type" and the code lens, write them as JSON.
-- Environment: LSP_COUNT_CMD (JSON list), LSP_COUNT_FILE, LSP_COUNT_OUT, LSP_COUNT_SETTINGS (JSON).
local file = os.getenv("LSP_COUNT_FILE")
local out = os.getenv("LSP_COUNT_OUT")
local settings = vim.fn.json_decode(os.getenv("LSP_COUNT_SETTINGS") or "{}")
local result = { diagnostics = {}, errors = {} }

local function finish()
  local fh = io.open(out, "w")
  fh:write(vim.fn.json_encode(result))
  fh:close()
  vim.cmd("qall!")
end

local start = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/start_client.lua")

local ok, err = pcall(function()
  local _, ready = start(file, {
    settings = settings,
    -- Neovim 0.7 neither pulls settings nor sends them on its own: push them after
    -- initialize, as nvim-lspconfig does (and as the README's snippet does).
    on_init = function(client)
      client.notify("workspace/didChangeConfiguration", { settings = client.config.settings })
    end,
    handlers = {
      ["textDocument/publishDiagnostics"] = function(_, params)
        if params and params.uri == vim.uri_from_fname(file) then
          result.diagnostics = params.diagnostics
          result.published = true
        end
      end,
    },
  })
  result.initialized = ready
  -- Diagnostics arrive pushed (Neovim 0.7 has no pull diagnostics): wait for the first publish.
  vim.wait(20000, function() return result.published == true end, 20)
  local lnum = vim.fn.search('"model_type"')
  local uri = vim.uri_from_bufnr(0)
  local hover = vim.lsp.buf_request_sync(0, "textDocument/hover",
    { textDocument = { uri = uri }, position = { line = lnum - 1, character = 4 } }, 20000)
  for _, res in pairs(hover or {}) do
    if res.err then table.insert(result.errors, vim.inspect(res.err)) end
    if res.result then result.hover = res.result.contents.value end
  end
  local lenses = vim.lsp.buf_request_sync(0, "textDocument/codeLens", { textDocument = { uri = uri } }, 20000)
  for _, res in pairs(lenses or {}) do
    if res.err then table.insert(result.errors, vim.inspect(res.err)) end
    if res.result and res.result[1] then result.lens = res.result[1].command.title end
  end
end)
if not ok then table.insert(result.errors, tostring(err)) end
finish()
