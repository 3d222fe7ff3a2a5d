from lsp_count.cli import main

raise SystemExit(main())
