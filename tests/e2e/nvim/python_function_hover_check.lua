-- Drives lsp-count from a real Neovim 0.7 (headless) on a file of model functions: hover the
-- `def` line of vgg11 (counted on that hover) and of a helper that needs arguments, and read the
-- code lenses (the class's only). Writes what it saw as JSON.
-- Environment: LSP_COUNT_CMD (JSON list), LSP_COUNT_FILE, LSP_COUNT_OUT.
local file = os.getenv("LSP_COUNT_FILE")
local out = os.getenv("LSP_COUNT_OUT")
local result = { errors = {}, hovers = {} }
local helpers = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/python_helpers.lua")

local ok, err = pcall(function()
  local _, ready = helpers.start(file, {})
  result.initialized = ready
  local uri = vim.uri_from_bufnr(0)
  for _, name in ipairs({ "vgg11", "_vgg" }) do
    local lnum = vim.fn.search("^def " .. name .. "(")
    local replies = vim.lsp.buf_request_sync(0, "textDocument/hover",
      { textDocument = { uri = uri }, position = { line = lnum - 1, character = 5 } }, 20000)
    result.hovers[name] = ""
    for _, res in pairs(replies or {}) do
      if res.err then table.insert(result.errors, vim.inspect(res.err)) end
      if res.result then result.hovers[name] = res.result.contents.value end
    end
  end
  result.lenses = helpers.lenses(uri, result)
end)
helpers.finish(ok, err, result, out)
