"""What the analyser reads for Lightning's ``LightningCLI`` where the installed lightning is not
read (``read-packages``). It is never imported.

``LightningCLI(Model, DataModule)`` in a script (``def cli_main(): cli = LightningCLI(...)``)
builds the model, the datamodule and the Trainer from the command line the script is run with
(``--script-args``, or the project's ``script-args``; the ``args`` the code gives), as jsonargparse
parses it (``lsp_count_shim.cli_arguments``): its subcommand (``fit``, ``validate``, ``test``,
``predict``), which a run needs; ``--config FILE`` (a YAML file of the script's folder: ``model:``,
``data:``, ``trainer:``; a ``class_path`` naming the class itself, with its ``init_args``); and
``--model.width 64``, ``--data.batch_size 32``, ``--trainer.precision bf16-mixed``, each value read
as YAML reads a scalar. Then it runs the subcommand as the Trainer does (shims/lightning_trainer.py):
``fit`` trains the model in that precision, batch and strategy. Subclass mode (``--model
MyModel``) is not followed.
"""

import sys

from lightning_trainer import Trainer  # (shims/lightning_trainer.py)
from lsp_count_shim import cli_arguments, stop


class LightningCLI:
    def __init__(self, model_class=None, datamodule_class=None, save_config_callback=None, save_config_kwargs=None,
                 trainer_class=None, trainer_defaults=None, seed_everything_default=True, parser_kwargs=None,
                 subclass_mode_model=False, subclass_mode_data=False, args=None, run=True,
                 auto_configure_optimizers=True, load_from_checkpoint_support=True):
        if model_class is None or subclass_mode_model or subclass_mode_data:
            stop("LightningCLI chooses its model or datamodule class from the command line (subclass mode), "
                 "which the analysis does not follow")
        subcommand, sections = cli_arguments(sys.argv[1:] if args is None else args, run, model_class,
                                             datamodule_class)
        self.subcommand = subcommand
        self.model = model_class(**sections["model"])
        self.datamodule = datamodule_class(**sections["data"]) if datamodule_class is not None else None
        arguments = dict(trainer_defaults or {})
        arguments.update(sections["trainer"])
        self.trainer = (trainer_class or Trainer)(**arguments)
        if subcommand is not None:
            run_subcommand = getattr(self.trainer, subcommand)
            if self.datamodule is not None:
                run_subcommand(self.model, datamodule=self.datamodule)
            else:
                run_subcommand(self.model)
