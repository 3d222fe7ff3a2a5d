"""What the analyser reads for accelerate's ``Accelerator`` where the installed accelerate is not
read (``read-packages``). It is never imported.

A training script hands its model to the accelerator and takes it back (``model, optimizer =
accelerator.prepare(model, optimizer)``, ``accelerator.unwrap_model(model)``): on one process
accelerate gives the same objects back, on several the model wrapped in DistributedDataParallel,
which holds the same parameters. Its process is the one main process of a machine without a
GPU (``model.to(accelerator.device)``, ``if accelerator.is_main_process:``): what the analysis
counts does not depend on where the parameters live. Its ``mixed_precision="bf16"`` / ``"fp16"``
runs the model's forward under autocast in that dtype, as the analyser reads a training loop's
own ``torch.autocast`` (``"no"``, an autocast to float32: float32 throughout). What else an
Accelerator has (``backward``, ``gather``) is not written here: the analyser does not know it.
"""

import torch


class Accelerator:
    def __init__(self, *args, **kwargs):
        precision = kwargs.get("mixed_precision")
        if precision in ("bf16", "fp16"):
            torch.autocast("cuda", dtype=torch.bfloat16 if precision == "bf16" else torch.float16)
        elif precision == "no":
            torch.autocast("cuda", dtype=torch.float32)  # (said so: float32 throughout)
        self.mixed_precision = "no" if precision is None else precision
        self.device = torch.device("cpu")
        self.num_processes = 1
        self.process_index = 0
        self.local_process_index = 0
        self.is_main_process = True
        self.is_local_main_process = True
        self.is_last_process = True

    def prepare(self, *args, device_placement=None):
        if len(args) == 1:
            return args[0]
        return args

    def prepare_model(self, model, device_placement=None, evaluation_mode=False):
        return model

    def unwrap_model(self, model, keep_fp32_wrapper=True, keep_torch_compile=True):
        return model
