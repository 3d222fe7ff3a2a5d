"""What the analyser reads for transformers' ``HfArgumentParser``, read or not: transformers' own
builds an argparse parser from the dataclasses' field types, which the analyser does not follow.
It is never imported.

The parser turns the command line into one instance of each dataclass. The analysis takes the
command line that gives no arguments, as for argparse's ``parse_args()`` (``sys.argv``, noted):
each dataclass is made with its defaults, and a field without one is an argument argparse requires,
so the script exits there, as argparse does. A dataclass the analyser cannot make is not known, the
others are (transformers' ``TrainingArguments`` is made with shims/transformers_trainer.py's
``__post_init__``).
``parse_dict`` makes them from a dict's keys, as transformers does.
"""

import dataclasses
import sys

from lsp_count_shim import attempt, stop


class HfArgumentParser:
    def __init__(self, dataclass_types=None, **kwargs):
        if dataclass_types is None:
            dataclass_types = []
        elif not isinstance(dataclass_types, (list, tuple)):
            dataclass_types = [dataclass_types]
        self.dataclass_types = list(dataclass_types)

    def parse_args_into_dataclasses(self, args=None, return_remaining_strings=False, look_for_args_file=True,
                                    args_filename=None, args_file_flag=None):
        given = sys.argv[1:] if args is None else list(args)
        if given:
            stop("the analyser does not parse the arguments HfArgumentParser is given")
        outputs = [attempt(_with_defaults, cls) for cls in self.dataclass_types]
        if return_remaining_strings:
            outputs.append([])
        return tuple(outputs)

    def parse_dict(self, args, allow_extra_keys=False):
        unused = set(args.keys())
        outputs = []
        for cls in self.dataclass_types:
            keys = {field.name for field in dataclasses.fields(cls) if field.init}
            inputs = {k: v for k, v in args.items() if k in keys}
            unused.difference_update(inputs.keys())
            outputs.append(attempt(cls, **inputs))
        if not allow_extra_keys and unused:
            raise ValueError(f"Some keys are not used by the HfArgumentParser: {sorted(unused)}")
        return tuple(outputs)


def _with_defaults(cls):
    for field in dataclasses.fields(cls):
        if field.init and field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING:
            stop(f"HfArgumentParser's argparse exits: the argument `--{field.name}` is required (a command line "
                 f"that gives no arguments is taken)")
    return cls()
