"""What the analyser reads for torch's ``DataLoader``. It is never imported.

A training loop takes its batches from a DataLoader (``for x, y in train_loader:``): the loader's
``batch_size`` is the batch of each step, which sizes the step's activations. The loader keeps its
arguments with torch's defaults (``batch_size=1``); with a ``batch_sampler`` the batch is the
sampler's, which is not read. Iterating it hands the batch size to the analyser
(``loader_iterated``), which keeps it where the loop that iterates it trains (its body takes a
backward pass or an optimizer step, or yields the batches to a loop that takes them), then stops: the data itself, and so the number of batches
(``len(loader)``), is not read.
"""

from lsp_count_shim import loader_iterated, stop


class DataLoader:
    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None, num_workers=0,
                 collate_fn=None, pin_memory=False, drop_last=False, timeout=0, worker_init_fn=None,
                 multiprocessing_context=None, generator=None, *, prefetch_factor=None, persistent_workers=False,
                 pin_memory_device="", in_order=True):
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, "
                                 "and drop_last")
            batch_size = None
            drop_last = False
        self.dataset = dataset
        self.batch_size = batch_size
        self.batch_sampler = batch_sampler
        self.sampler = sampler
        self.drop_last = drop_last
        self.num_workers = num_workers
        self.collate_fn = collate_fn
        self.pin_memory = pin_memory
        self.generator = generator

    def __iter__(self):
        loader_iterated(self.batch_size)
        stop("the batches a DataLoader yields are not read (its data is not)")

    def __len__(self):
        stop("the number of batches of a DataLoader is not known: its dataset's length is not read")
