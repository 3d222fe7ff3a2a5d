-- Shared by the Python scripts: starting the client, the code lenses of a document, and
-- writing what a script saw.
local M = {}

M.start = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/start_client.lua")

-- A publishDiagnostics handler that counts, in result.publishes, those of the document at `uri`.
function M.count_publishes(uri, result)
  result.publishes = result.publishes or 0
  return function(_, params)
    if params and params.uri == uri then result.publishes = result.publishes + 1 end
  end
end

-- The document's code lenses as { line, title }; a request error goes to result.errors.
function M.lenses(uri, result)
  local found = {}
  local replies = vim.lsp.buf_request_sync(0, "textDocument/codeLens", { textDocument = { uri = uri } }, 20000)
  for _, res in pairs(replies or {}) do
    if res.err then table.insert(result.errors, vim.inspect(res.err)) end
    for _, lens in ipairs(res.result or {}) do
      if lens.command then table.insert(found, { line = lens.range.start.line, title = lens.command.title }) end
    end
  end
  return found
end

-- Writes the result as JSON to `out` (with the error of a failed pcall, if any) and quits.
function M.finish(ok, err, result, out)
  if not ok then table.insert(result.errors, tostring(err)) end
  local fh = io.open(out, "w")
  fh:write(vim.fn.json_encode(result))
  fh:close()
  vim.cmd("qall!")
end

return M
