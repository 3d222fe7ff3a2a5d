-- Starts lsp-count (LSP_COUNT_CMD) for one file and opens it in a buffer attached to the client;
-- waits until the client is initialized. `extra` adds to vim.lsp.start_client's config
-- (handlers, settings, flags, on_init). Returns the client id and whether it initialized.
return function(file, extra)
  local config = {
    cmd = vim.fn.json_decode(os.getenv("LSP_COUNT_CMD")),
    name = "lsp-count",
    root_dir = vim.fn.fnamemodify(file, ":p:h"),
  }
  for key, value in pairs(extra or {}) do config[key] = value end
  local client_id = vim.lsp.start_client(config)
  vim.cmd("edit " .. vim.fn.fnameescape(file))
  vim.lsp.buf_attach_client(0, client_id)
  local ready = vim.wait(20000, function()
    local client = vim.lsp.get_client_by_id(client_id)
    return client ~= nil and client.initialized == true
  end, 20)
  return client_id, ready
end
