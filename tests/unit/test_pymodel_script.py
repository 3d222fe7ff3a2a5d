"""A training script's entry point (``if __name__ == "__main__":`` and the ``main()`` it calls):
the models it builds, what it cannot follow said, and the file's class counts left as an import
gives them. Exact counts against torch are in tests/parity/test_pymodel_script_parity.py."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from lsp_count.core.analyze import AnalyzeOptions, analyze_text


def run(src: str, path: str = "train.py"):
    return analyze_text(textwrap.dedent(src), path, AnalyzeOptions())


def counts(report) -> dict[str, tuple[int, int]]:
    return {m.name: (m.tree.total, m.tree.trainable) for m in report.models}


def lc101(report) -> dict[str, str]:
    return {p.message.split("`")[1]: p.message for p in report.problems if p.code == "LC101"}


def test_main_s_models_are_named_by_their_variables_at_their_last_assignment() -> None:
    report = run("""
        import torch
        import torch.nn as nn


        def main():
            hidden = 64
            encoder = nn.Linear(10, hidden)
            with torch.device("meta"):
                head = nn.Linear(hidden, 2)
            head = head.to(torch.bfloat16)
            optimizer = torch.optim.AdamW(head.parameters())


        if __name__ == "__main__":
            main()
    """)
    assert counts(report) == {"encoder in main()": (704, 704), "head in main()": (130, 130)}
    spans = {m.name: (m.span.start.line, m.span.start.column) for m in report.models}
    assert spans == {"encoder in main()": (7, 4), "head in main()": (10, 4)}  # `head = head.to(...)`
    assert [h[1] for h in report.hints] == ["▸ 704", "▸ 130"]  # the layers main() builds get their hints


def test_a_main_block_s_own_names_and_a_module_level_name_it_assigns_again() -> None:
    report = run("""
        import torch.nn as nn

        model = nn.Linear(4, 4)

        if __name__ == "__main__":
            model = nn.Sequential(model, nn.Linear(4, 2))
            extra = nn.Embedding(10, 3)
    """)
    # `model` once, as the block leaves it; `extra` is the block's own.
    assert counts(report) == {"model": (30, 30), "extra": (30, 30)}


def test_two_names_of_one_module_are_one_model_under_its_first_name() -> None:
    """`net = model` holds the same module (before, each name was a model: a budget judged it twice)."""
    report = run("""
        import torch.nn as nn

        model = nn.Sequential(nn.Linear(4, 4))
        net = model
        copy = nn.Sequential(nn.Linear(4, 4))


        def main():
            big = nn.Linear(8, 8)
            same = big
            also = same
            for p in same.parameters():
                p.requires_grad = False


        if __name__ == "__main__":
            main()
    """)
    assert counts(report) == {"model": (20, 20), "copy": (20, 20), "big in main()": (72, 0)}
    notes = {m.name: m.tree.notes for m in report.models}
    assert notes["model"] == ("the same module is also named `net`",) and notes["copy"] == ()
    assert "the same module is also named `same in main()`, `also in main()`" in notes["big in main()"]


def test_what_the_entry_point_cannot_follow_is_skipped_and_what_it_builds_from_it_is_explained() -> None:
    report = run("""
        import sys
        import torch
        import torch.nn as nn
        from datasets import load_dataset


        def main():
            data = load_dataset("imdb")
            vocab = len(data["train"].features["label"].names)
            classifier = nn.Embedding(vocab, 16)
            probe = nn.Linear(16, 2)
            for step in range(10_000_000):  # the training loop: followed only so far
                probe.zero_grad()
            while True:
                pass
            return probe


        if __name__ == "__main__":
            sys.exit(main())
    """)
    assert counts(report) == {"probe in main()": (34, 34)}
    message = lc101(report)["classifier in main()"]
    assert "datasets" in message, message
    assert report.problems[0].span.start.line == 10


def test_the_file_s_classes_count_as_imported_whatever_its_main_block_changes() -> None:
    # A model file's quick test: the block runs after the classes are counted, so its changes to
    # globals and the default dtype do not reach them; its own model is counted with them.
    report = run("""
        import torch
        import torch.nn as nn

        WIDTH = 8


        class Net(nn.Module):
            def __init__(self, depth=2):
                super().__init__()
                self.layers = nn.ModuleList([nn.Linear(WIDTH, WIDTH) for _ in range(depth)])


        if __name__ == "__main__":
            torch.set_default_dtype(torch.float64)
            WIDTH = 16
            net = Net(depth=3)
            x = torch.randn(2, WIDTH)
            print(net(x).shape)
    """, path="model.py")
    assert counts(report) == {"Net": (2 * 72, 2 * 72), "net": (3 * 272, 3 * 272)}
    assert not lc101(report)


def test_return_ends_main_and_argparse_gives_its_defaults() -> None:
    report = run("""
        import argparse
        import torch.nn as nn


        def main(args):
            model = nn.Linear(args.width, args.width)
            if args.dry_run:
                return
            late = nn.Linear(2, 2)


        if __name__ == "__main__":
            parser = argparse.ArgumentParser()
            parser.add_argument("--width", type=int, default=32)
            parser.add_argument("--dry-run", action="store_true", default=True)
            main(parser.parse_args())
    """)
    assert counts(report) == {"model in main()": (32 * 32 + 32, 32 * 32 + 32)}


def test_a_hydra_entry_point_whose_config_is_not_there_says_so() -> None:
    # hydra passes `cfg` itself, composed from conf/train.yaml beside the script, which is not there
    # (tests/unit/test_hydra_config.py has the configs that are).
    report = run("""
        import hydra
        import torch


        @hydra.main(config_path="conf", config_name="train")
        def main(cfg):
            model = hydra.utils.instantiate(cfg.model)


        if __name__ == "__main__":
            main()
    """)
    assert report.models == () and report.recognized
    assert [p.code for p in report.problems] == ["LC101", "LC101"]
    assert report.problems[0].message.startswith("`cfg` is the config `train` Hydra composes from conf, which fails: ")
    assert report.problems[0].message.endswith("conf/train.yaml does not exist (Hydra's MissingConfigException)")
    assert report.problems[1].message.startswith("`model in main()` cannot be counted exactly: "
                                                 "`hydra.utils.instantiate(cfg.model)`: `cfg` is the config")


def test_only_a_module_level_function_of_the_file_is_followed_as_its_entry_point() -> None:
    report = run("""
        import torch.nn as nn
        from trainer import main as trainer_main


        class Runner:
            def main(self):
                model = nn.Linear(3, 3)


        def main():
            def inner():
                hidden = nn.Linear(5, 5)
            inner()
            model = nn.Linear(2, 2)


        if __name__ == "__main__":
            trainer_main()
            Runner().main()
            main()
            main()
    """)
    assert counts(report) == {"model in main()": (6, 6)}  # once, its locals (not inner()'s) only


def test_the_cli_counts_a_script_s_main_and_exits_on_its_budget(tmp_path) -> None:
    script = tmp_path / "train.py"
    script.write_text(textwrap.dedent("""
        import torch.nn as nn


        def main():
            model = nn.Sequential(nn.Embedding(50_000, 4096), nn.Linear(4096, 50_000))


        if __name__ == "__main__":
            main()
    """))
    cli = [sys.executable, "-m", "lsp_count"]
    shown = subprocess.run([*cli, str(script)], capture_output=True, text=True, timeout=120)
    assert shown.returncode == 0 and shown.stdout.startswith("model in main()\n") and "409,650,000" in shown.stdout
    over = subprocess.run([*cli, "check", "--max-params", "100M", str(script)], capture_output=True, text=True,
                          timeout=120)
    assert over.returncode == 1 and f"{script}:6:" in over.stdout and "LC202 410M parameters" in over.stdout


def test_a_module_level_model_built_in_a_branch_is_counted_or_its_reason_said(tmp_path) -> None:
    # nanoGPT's train.py: `model = GPT(gptconf)` under `if init_from == "scratch":`, then
    # `model = torch.compile(model)` under `if compile:`; its vocabulary comes from the dataset's
    # meta.pkl where one exists (in the script's folder), which the analysis does not read: said at
    # the build.
    script = """
        import os
        import pickle
        import torch
        import torch.nn as nn

        init_from = "scratch"
        compile = True
        vocab_size = 50304
        {vocab}
        if init_from == "scratch":
            model = nn.Embedding(vocab_size, 8)
        elif init_from == "resume":
            model = torch.load("ckpt.pt")
        if compile:
            model = torch.compile(model)
    """
    assert counts(run(script.format(vocab=""))) == {"model": (50304 * 8, 50304 * 8)}
    (tmp_path / "meta.pkl").write_bytes(b"\x80\x04N.")
    report = run(script.format(vocab="if os.path.exists('meta.pkl'):\n            vocab_size = pickle.load("
                                      "open('meta.pkl', 'rb'))['vocab_size']"), str(tmp_path / "train.py"))
    assert report.models == ()
    message = lc101(report)["model"]
    assert "`open('meta.pkl', 'rb')` reads a file in binary (a pickle, a checkpoint), which the analyser does not " \
           "read" in message, message
    assert (report.problems[0].span.start.line, report.problems[0].span.start.column) == (12, 4)  # `model = nn.Embedding(...)`


def test_an_entry_point_that_takes_too_long_is_followed_so_far() -> None:
    # Each statement has a class's budget and the whole entry point ENTRY_STEPS: past it, what the
    # rest assigns is said to be not followed, and what was built before is counted.
    from lsp_count.pymodel.interp import ENTRY_STEPS, MAX_STEPS

    heavy = "    total = sum(i * i for i in range(9000))\n" * (ENTRY_STEPS // 9000 + 2)
    report = run("import torch.nn as nn\n\n\ndef main():\n    first = nn.Linear(2, 2)\n" + heavy +
                 "    late = nn.Linear(3, 3)\n\n\nif __name__ == '__main__':\n    main()\n")
    assert counts(report) == {"first in main()": (6, 6)}
    assert f"took more than {ENTRY_STEPS:,} steps" in lc101(report)["late in main()"]
    assert 9000 * 2 < MAX_STEPS  # (each heavy statement alone is within a statement's budget)


def test_main_under_try_and_try_blocks_in_main_are_followed_statement_by_statement() -> None:
    report = run("""
        import torch.nn as nn
        import wandb


        def main(width):
            try:
                run = wandb.init(project="x")
                model = nn.Linear(width, width)
                if width > 2:
                    return
            except ImportError:
                model = None
            late = nn.Linear(1, 1)


        if __name__ == "__main__":
            try:
                width = 4
                main(width)
            except KeyboardInterrupt:
                pass
            finally:
                probe = nn.Linear(2, 1)
    """)
    # wandb is not read: `run` is skipped, `model` built; the `return` under the `if` ends main().
    assert counts(report) == {"probe": (3, 3), "model in main()": (20, 20)}


def test_fire_and_typer_call_main_with_its_defaults() -> None:
    for runner in ("import fire\n", "import typer\n"):
        call = "fire.Fire(main)" if "fire" in runner else "typer.run(main)"
        report = run("import torch.nn as nn\n" + runner + "\n\ndef main(width: int = 8, depth: int = 2):\n"
                     "    model = nn.Sequential(*[nn.Linear(width, width) for _ in range(depth)])\n\n\n"
                     f"if __name__ == '__main__':\n    {call}\n")
        assert counts(report) == {"model in main()": (2 * 72, 2 * 72)}, call
    needs = run("import torch.nn as nn\nimport fire\n\n\ndef main(width):\n    model = nn.Linear(width, 2)\n\n\n"
                "if __name__ == '__main__':\n    fire.Fire(main)\n")
    assert needs.models == () and not needs.recognized  # its width comes from the command line


def test_an_entry_point_with_a_line_that_does_not_parse_yet_counts_nothing_of_it() -> None:
    # As a class with such a line: the line being typed may change what the rest builds.
    report = run("""
        import torch.nn as nn


        def main():
            model = nn.Linear(4, 4)
            criterion = nn.CrossEntropyLoss()
            other = nn.Sequential(nn.Linear(2, 2), nn.Linear(2,
            model.requires_grad_(False)


        if __name__ == "__main__":
            probe = nn.Linear(3, 3)
            main()
    """)
    assert counts(report) == {"probe": (12, 12)}
    assert lc101(report) == {"model in main()": "`model in main()` cannot be counted exactly: line 8 does not "
                                                "parse yet"}


def test_main_called_in_a_with_block_is_followed() -> None:
    report = run("""
        import torch
        import torch.nn as nn
        import wandb


        def main():
            model = nn.Linear(4, 4)


        if __name__ == "__main__":
            with wandb.init(project="x") as run, torch.device("meta"):
                main()
    """)
    assert counts(report) == {"model in main()": (20, 20)}


def test_main_called_in_the_branch_python_takes_is_followed() -> None:
    script = """
        import argparse
        import torch.nn as nn


        def train(width):
            model = nn.Linear(width, width)


        def evaluate():
            probe = nn.Linear(2, 2)


        if __name__ == "__main__":
            parser = argparse.ArgumentParser()
            parser.add_argument("--mode", default="{mode}")
            args = parser.parse_args()
            if args.mode == "train":
                train(3)
            elif args.mode == "eval":
                evaluate()
    """
    assert counts(run(script.format(mode="train"))) == {"model in train()": (12, 12)}
    assert counts(run(script.format(mode="eval"))) == {"probe in evaluate()": (6, 6)}


# --- found by a sweep of real training scripts (pytorch/examples, accelerate, peft, llama2.c) ---

def test_a_function_main_calls_for_what_it_does_is_followed_as_main_is() -> None:
    # pytorch/examples' imagenet: main() calls main_worker(...), which builds the model ("no model found" before).
    report = run("""
        import torch.nn as nn


        def main():
            main_worker(4)


        def main_worker(n):
            model = nn.Linear(n, n)


        def stream():
            head = nn.Linear(8, 8)
            yield head


        def other():
            main()
            stream()  # a generator function: calling it runs none of it


        if __name__ == "__main__":
            other()
    """)
    assert counts(report) == {"model in main_worker()": (20, 20)}


def test_a_method_that_stops_where_the_analyser_cannot_follow_leaves_its_module_not_known() -> None:
    # peft's `model.merge_and_unload()` replaced the LoRA layers in place, beyond where the analysis
    # stopped, and `model` kept its count from before (a wrong number); a method that only reads
    # the module (llama2.c's configure_optimizers) leaves it counted.
    report = run("""
        import torch.nn as nn


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 4)

            def shrink(self):
                for name in input().split():
                    setattr(self, name, nn.Identity())

            def report(self):
                params = list(self.parameters())
                return sum(p.numel() for p in params) + len(input())


        model = Net()
        model.shrink()
        other = Net()
        other.report()
    """)
    assert counts(report) == {"Net": (20, 20), "other": (20, 20)}
    assert "`model.shrink()` (line 20) calls `shrink`, which the analyser cannot follow to its end: the code calls " \
           "`input`" in lc101(report)["model"]


def test_tqdm_over_an_iterable_gives_its_items() -> None:
    report = run("""
        import torch.nn as nn
        from tqdm import tqdm
        from tqdm.auto import tqdm as auto_tqdm

        layers = nn.ModuleList()
        for width in tqdm([2, 3], desc="building"):
            layers.append(nn.Linear(width, width))
        for _ in auto_tqdm(range(2), disable=True):
            layers.append(nn.Linear(1, 1))
    """)
    assert counts(report) == {"layers": (6 + 12 + 2 + 2, 6 + 12 + 2 + 2)}


def test_the_accelerator_is_one_main_process_on_the_cpu() -> None:
    # accelerate's examples: `model = model.to(accelerator.device)`, `if accelerator.is_main_process:`.
    report = run("""
        import torch.nn as nn
        from accelerate import Accelerator


        def main():
            accelerator = Accelerator()
            model = nn.Linear(4, 4).to(accelerator.device)
            if accelerator.is_main_process and accelerator.num_processes == 1:
                head = nn.Linear(2, 2)


        if __name__ == "__main__":
            main()
    """)
    assert counts(report) == {"model in main()": (20, 20), "head in main()": (6, 6)}


def test_the_accelerator_state_says_which_plugins_it_was_given() -> None:
    report = run("""
        import torch.nn as nn
        from accelerate import Accelerator
        from accelerate.utils import DeepSpeedPlugin

        plain = Accelerator(mixed_precision="bf16")
        sharded = Accelerator(deepspeed_plugin=DeepSpeedPlugin(zero_stage=3, offload_optimizer_device="cpu"))
        zero = sharded.state.deepspeed_plugin.deepspeed_config["zero_optimization"]
        if plain.state.deepspeed_plugin is None and plain.state.fsdp_plugin is None and plain.state.num_processes == 1:
            a = nn.Linear(zero["stage"], 1, bias=False)
        if "optimizer" not in sharded.state.deepspeed_plugin.deepspeed_config and plain.state.mixed_precision == "bf16":
            b = nn.Linear(len(zero["offload_optimizer"]["device"]), 1, bias=False)
    """)
    assert counts(report) == {"a": (3, 3), "b": (3, 3)}, report.problems


def test_the_accelerator_s_distributed_type_is_the_run_its_plugins_shard_for() -> None:
    # accelerate's no_trainer examples: `if accelerator.distributed_type == DistributedType.XLA:
    # model.tie_weights()` after prepare. Not known, it left the model uncountable.
    report = run("""
        import torch.nn as nn
        from accelerate import Accelerator, DistributedType
        from accelerate.utils import DeepSpeedPlugin, FullyShardedDataParallelPlugin
        from accelerate.utils import DistributedType as UtilsDistributedType

        model = nn.Linear(4, 4)
        accelerator = Accelerator()
        model = accelerator.prepare(model)
        if accelerator.distributed_type == DistributedType.XLA:
            model.weight = None
        kinds = [Accelerator(deepspeed_plugin=DeepSpeedPlugin()).distributed_type,
                 Accelerator(fsdp_plugin=FullyShardedDataParallelPlugin()).state.distributed_type,
                 accelerator.state.distributed_type]
        if kinds == [DistributedType.DEEPSPEED, DistributedType.FSDP, UtilsDistributedType.NO] and \
                kinds[1] == "FSDP" and accelerator.distributed_type.value == "NO":
            other = nn.Linear(2, 2)
    """)
    assert counts(report) == {"model": (20, 20), "other": (6, 6)}, report.problems


_DUMMY_OPTIM = """
    import torch.nn as nn
    from accelerate import Accelerator
    from accelerate.utils import DeepSpeedPlugin
    from accelerate.utils.deepspeed import DummyOptim, DummyScheduler

    model = nn.Linear(4, 4)
    accelerator = Accelerator({plugin})
    optimizer = DummyOptim(model.parameters(), lr=1e-4)
    scheduler = DummyScheduler(optimizer, total_num_steps=100)
    model, optimizer, scheduler = accelerator.prepare(model, optimizer, scheduler)
"""


def test_a_dummy_optimizer_is_the_one_the_deepspeed_config_names() -> None:
    config = "{'zero_optimization': {'stage': 1}, 'optimizer': {'type': 'AdamW', 'params': {'lr': 'auto'}}}"
    report = run(_DUMMY_OPTIM.format(plugin=f"deepspeed_plugin=DeepSpeedPlugin(hf_ds_config={config})"))
    model = next(m for m in report.models if m.name == "model")
    assert model.plan["optimizer"] == "adamw" and model.plan["zero"] == 1, model.plan
    assert "DeepSpeed makes its config's optimizer `AdamW`" in model.tree.notes[0]


def test_a_dummy_optimizer_with_a_deepspeed_config_not_read_still_trains_the_model() -> None:
    # The plugin's JSON file is not there: the model is counted and trained, with the optimizer's
    # states not known and the config said not read (it was LC101: `in` on a value not known).
    report = run(_DUMMY_OPTIM.format(plugin='deepspeed_plugin=DeepSpeedPlugin(hf_ds_config="missing.json")'))
    assert counts(report) == {"model": (20, 20)}, report.problems
    model = next(m for m in report.models if m.name == "model")
    notes = " ".join(model.tree.notes)
    assert model.plan["mode"] == "train" and "the config is not read" in notes, notes
    assert "whose config is not read" in notes and "missing.json" in notes, notes


def test_a_dummy_optimizer_without_an_optimizer_in_the_config_is_accelerates_error() -> None:
    report = run(_DUMMY_OPTIM.format(plugin="deepspeed_plugin=DeepSpeedPlugin(zero_stage=2)"))
    assert "You cannot create a `DummyOptim` without specifying an optimizer in the config file" in \
        lc101(report)["model"]


def test_a_dummy_optimizer_without_deepspeed_trains_nothing() -> None:
    # accelerate hands it back as it is; it has no step: the model is not trained by it.
    report = run(_DUMMY_OPTIM.format(plugin=""))
    assert counts(report) == {"model": (20, 20)}
    assert next(m for m in report.models if m.name == "model").plan.get("mode") != "train"


def test_a_flag_set_on_a_module_in_a_loop_the_analyser_cannot_follow_leaves_it_counted() -> None:
    # llama2.c's training loop: `if ddp: model.require_backward_grad_sync = micro_step == steps - 1`.
    source = """
        import torch
        import torch.nn as nn

        ddp = False
        model = nn.Linear(4, 4)
        optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
        for step, group in enumerate(optimizer.param_groups):
            if ddp:
                model.require_backward_grad_sync = step == 3
    """
    assert counts(run(source)) == {"model": (20, 20)}
    # A part given None (or anything else) there may be gone: not known.
    replaced = run(source.replace("model.require_backward_grad_sync = step == 3", "model.weight = None"))
    assert "model" in lc101(replaced)


def test_a_script_that_builds_a_project_class_without_importing_torch_is_counted(tmp_path) -> None:
    # pytorch/examples' word_language_model style: `from model import RNNModel` and nothing of torch
    # in the script itself ("no model found" before, the file dismissed unread).
    (tmp_path / "model.py").write_text(textwrap.dedent("""
        import torch.nn as nn


        class RNNModel(nn.Module):
            def __init__(self, ntoken, ninp):
                super().__init__()
                self.encoder = nn.Embedding(ntoken, ninp)
    """))
    script = "from model import RNNModel\n\nnet = RNNModel(10, 4)\nconfig = dict(a=1)\n"
    report = analyze_text(script, str(tmp_path / "train.py"), AnalyzeOptions())
    assert counts(report) == {"net": (40, 40)}
    assert not analyze_text("from tools import helper\n\nvalue = helper(3)\n", str(tmp_path / "util.py"),
                            AnalyzeOptions()).recognized  # a project function, not a class: not run


def test_a_model_of_a_project_module_or_a_model_library_the_analysis_cannot_build_is_said(tmp_path) -> None:
    # `import net; net.Net(ntokens)` with ntokens from a data file, and torchvision's builders where
    # torchvision is not read, were "no model found", where `from net import Net` said why.
    (tmp_path / "net.py").write_text("import torch.nn as nn\n\n\nclass Net(nn.Module):\n    def __init__(self, n):\n"
                                     "        super().__init__()\n        self.embed = nn.Embedding(n, 4)\n")
    script = textwrap.dedent("""
        import torch
        import net
        import torchvision.models as models
        from torchvision.models import resnet50

        ntokens = len(open("data/train.txt").read().split())
        model = net.Net(ntokens)
        backbone = models.resnet18()
        other = resnet50()
    """)
    refused = lc101(analyze_text(script, str(tmp_path / "train.py"), AnalyzeOptions(read_packages=())))
    # (the data file is not there: Python's FileNotFoundError, where importing the script stops)
    assert set(refused) == {"model", "backbone", "other", "open('data/train.txt')"}
    assert "`ntokens` is set by code the analyser cannot follow: `open('data/train.txt')` raises FileNotFoundError: " \
           "no file `data/train.txt` in the script's folder" in refused["model"]
    assert "`torchvision.models.resnet18` is outside this file" in refused["backbone"]
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "train.txt").write_text("to be or not\n")  # four tokens: read, as the script reads it
    report = analyze_text(script, str(tmp_path / "train.py"), AnalyzeOptions(read_packages=()))
    assert counts(report)["model"] == (4 * 4, 4 * 4)


def test_a_model_of_a_module_the_analysis_does_not_find_is_said_where_the_code_uses_it_as_one(tmp_path) -> None:
    # train_gpt.py beside a missing nanogpt.py: `model = GPT(config)` was dropped without a word,
    # the other values of that module (a dataset, a config) rightly so.
    script = textwrap.dedent("""
        import torch
        from nanogpt import GPT, GPTConfig, TextData
        from other_missing import Encoder


        def main():
            config = GPTConfig(n_layer=6)
            data = TextData("shakespeare")
            data.prepare()
            model = GPT(config)
            optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
            optimizer.zero_grad()
            optimizer.state_dict()
            return model


        encoder = Encoder()
        encoder = torch.compile(encoder)

        if __name__ == "__main__":
            main()
    """)
    report = analyze_text(script, str(tmp_path / "train.py"), AnalyzeOptions())
    refused = lc101(report)
    assert set(refused) == {"model in main()", "encoder"}, refused
    assert "`nanogpt.GPT` is outside this file" in refused["model in main()"]
    assert "`other_missing.Encoder` is outside this file" in refused["encoder"]
    assert {p.span.start.line for p in report.problems if p.code == "LC101"} == {10, 17}  # (0-based)


def test_a_use_as_a_module_on_a_later_line_of_a_statement_is_found_also_after_an_edit_moves_it(tmp_path) -> None:
    # _used_as_modules walks only the statements whose lines hold one of its words: the word on a
    # continuation line, and the statement kept from the last analysis with its old line numbers
    # (an edit above it), must still be found; a name never used as a module is still not said.
    from lsp_count.pymodel.reuse import PythonMemo

    script = textwrap.dedent("""
        import logging

        import torch
        from other_missing import Encoder, Tokenizer

        _logger = logging.getLogger(__name__)
        tokenizer = Tokenizer()
        encoder = Encoder()
        optimizer = torch.optim.AdamW(
            [
                {"params": encoder.
                    parameters(), "lr": 1e-3},
            ],
        )
    """)
    path = str(tmp_path / "train.py")
    memo = PythonMemo()
    first = analyze_text(script, path, AnalyzeOptions(), memo=memo)
    assert set(lc101(first)) == {"encoder"}, lc101(first)
    edited = "# a comment\n# and another\n" + script
    again = analyze_text(edited, path, AnalyzeOptions(), memo=memo)
    assert set(lc101(again)) == {"encoder"}, lc101(again)
    assert [p.span.start.line for p in again.problems if p.code == "LC101"] == [
        p.span.start.line + 2 for p in first.problems if p.code == "LC101"]


def test_every_name_that_shows_a_use_as_a_module_is_found_by_the_walk() -> None:
    # The walk enters only the nodes whose lines hold one of the names: each must be found where it is used.
    from lsp_count.pymodel import analyzer

    for method in sorted(analyzer._ONLY_MODULE_METHODS):
        text = f"import torch\nnet = make()\nfor p in net.{method}():\n    pass\n"
        body, _, positions, _ = analyzer.parse_tolerant(text)
        assert analyzer._used_as_modules(body, positions) == {"net"}, method
    for taker in sorted(analyzer._MODULE_TAKERS):
        text = f"import torch\nnet = make()\nwrapped = torch.{taker}(\n    net)\n"
        body, _, positions, _ = analyzer.parse_tolerant(text)
        assert analyzer._used_as_modules(body, positions) == {"net"}, taker


# --- found by a second sweep of real training scripts (Lightning, trl, peft, FastChat, cleanrl) ---

def test_torch_dtypes_and_devices_are_instances_of_their_classes() -> None:
    # `isinstance(torch.float16, torch.dtype)` was False: 9 parameters where torch builds 5; it is how
    # transformers' BitsAndBytesConfig checks its compute dtype (every QLoRA script raised there).
    report = run("""
        import torch

        n = 4 if isinstance(torch.float16, torch.dtype) else 8
        model = torch.nn.Linear(n, 1)
        k = 2 if isinstance(torch.device("cpu"), torch.device) and not isinstance("cpu", torch.device) else 100
        model2 = torch.nn.Linear(k, 1, bias=False)
    """)
    assert counts(report) == {"model": (5, 5), "model2": (2, 2)}


def test_a_module_dunder_is_no_name_error_and_generate_changes_no_size() -> None:
    # `path.dirname(__file__)` at module level was said to raise NameError (this session's own
    # NameError rule); `model.generate(**batch)` where the batch is not known made the model unknown.
    report = run("""
        from os import path
        import torch.nn as nn

        DATA = path.join(path.dirname(__file__), "data")
        batch = dict(open("batch.txt").read())


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 3)

            def generate(self, **inputs):
                return self.fc


        model = Net()
        out = model.generate(**batch)
    """)
    assert counts(report) == {"Net": (15, 15), "model": (15, 15)}
    assert not [p for p in report.problems if "NameError" in p.message]


def test_a_python_type_as_hf_argument_parser_reads_a_field_s_type() -> None:
    # HfArgumentParser (transformers 5) asks of each field's type `isinstance(t, types.UnionType)`,
    # `issubclass(t, Enum)` and `inspect.isclass(t)`: each was not known for `str`.
    report = run("""
        import enum
        import inspect
        import types
        import torch.nn as nn

        t = str
        wide = not isinstance(t, types.UnionType) and not issubclass(t, enum.Enum) and issubclass(bool, int)
        wide = wide and inspect.isclass(t) and not inspect.isclass("str") and inspect.isclass(nn.Linear)
        model = nn.Linear(8 if wide else 2, 1, bias=False)
    """)
    assert counts(report) == {"model": (8, 8)}


def test_a_lightning_fabric_script_gets_its_model_back_from_setup() -> None:
    # Lightning's train_fabric.py: `model, optimizer = fabric.setup(model, optimizer)` was LC101.
    report = run("""
        import torch
        import torch.nn as nn
        from lightning.fabric import Fabric


        def run(fabric, width):
            model = nn.Linear(width, 5)
            optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
            model, optimizer = fabric.setup(model, optimizer)
            head = fabric.setup_module(nn.Linear(5, 2).to(fabric.device))


        def main():
            fabric = Fabric(accelerator="cpu")
            fabric.launch()
            if fabric.is_global_zero and fabric.world_size == 1:
                run(fabric, 10)


        if __name__ == "__main__":
            main()
    """)
    assert counts(report) == {"model in run()": (55, 55), "head in run()": (12, 12)}


def test_a_trl_trainer_given_a_model_id_has_it_counted_as_trainer_model() -> None:
    # TRL's quickstart, at module level: the trainer loads the model itself (shims/trl.py); the count
    # is the same model's as `from_pretrained` of the id (the catalog's config, checked in parity).
    loaded = run("""
        from transformers import AutoModelForCausalLM
        model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B")
    """)
    report = run("""
        from datasets import load_dataset
        from trl import SFTTrainer

        dataset = load_dataset("trl-lib/Capybara", split="train")
        trainer = SFTTrainer(
            model="Qwen/Qwen2.5-0.5B",
            train_dataset=dataset,
        )
        trainer.train()
    """)
    assert counts(report) == {"trainer.model": counts(loaded)["model"]}
    assert not [p for p in report.problems if p.severity != "info"]


def test_a_trl_trainer_given_the_script_s_model_leaves_it_counted_with_its_adapters_once() -> None:
    # `trainer.model` (the PeftModel around `model`) is not a second model: `model` holds the adapters.
    report = run("""
        from peft import LoraConfig
        from transformers import AutoModelForCausalLM, LlamaConfig
        import trl


        def main():
            model = AutoModelForCausalLM.from_config(LlamaConfig(vocab_size=32, hidden_size=16, intermediate_size=24,
                                                                 num_hidden_layers=1, num_attention_heads=2))
            trainer = trl.SFTTrainer(model, peft_config=LoraConfig(r=2, target_modules=["q_proj"]))
            trainer.train()
            trainer.save_model("out")


        if __name__ == "__main__":
            main()
    """)
    # embed 512 + lm_head 512 + norms 48 + attention 4 * 256 + mlp 3 * 384; q_proj's adapter 2 * 16 + 16 * 2
    assert counts(report) == {"model in main()": (512 + 512 + 48 + 1024 + 1152 + 64, 64)}
    assert not [p for p in report.problems if p.severity != "info"]


def test_a_trl_trainer_s_model_id_not_found_offline_is_said_at_the_trainer() -> None:
    report = run("""
        from trl import GRPOConfig, GRPOTrainer


        def main():
            args = GRPOConfig(output_dir="out")
            trainer = GRPOTrainer(model="no-such-org/no-such-model", reward_funcs=len, args=args)


        if __name__ == "__main__":
            main()
    """)
    assert not report.models
    problem = lc101(report)["trainer in main()"]
    assert 'base model "no-such-org/no-such-model" not found offline' in problem
    assert "trl.py" not in problem  # the reason, not the analyser's own lines
    assert next(p for p in report.problems if p.code == "LC101").span.start.line == 6


def test_trl_s_create_reference_model_is_a_frozen_copy_and_shared_layers_are_said() -> None:
    # (its bytes beside a real DPOTrainer: tests/parity/test_trl_reference_parity.py)
    source = """
        import torch.nn as nn
        from trl import DPOConfig, DPOTrainer, create_reference_model

        model = nn.Sequential(nn.Linear(4, 8), nn.Linear(8, 2))
        ref = create_reference_model(model{shared})
        trainer = DPOTrainer(model=model, ref_model=ref, args=DPOConfig(output_dir="out"))
    """
    report = run(source.format(shared=""))
    assert counts(report) == {"model": (58, 58), "ref": (58, 0)}
    (trained,) = [m for m in report.models if m.plan]
    assert (trained.plan["reference_model"], trained.plan["reference_parameters"]) == ("float32", 58)
    problem = lc101(run(source.format(shared=", num_shared_layers=1")))["trainer"]
    assert "shares the first layers' storage" in problem and "trl.py" not in problem


def test_a_trainer_s_deepspeed_stage_is_its_memory_s_and_a_config_file_is_said_not_read(tmp_path) -> None:
    # (FSDP against transformers' own arguments: tests/parity/test_trainer_sharding_parity.py)
    import subprocess as _subprocess

    source = """
        import torch.nn as nn
        from transformers import Trainer, TrainingArguments
        from trl import SFTConfig, SFTTrainer

        model = nn.Sequential(nn.Linear(4, 8), nn.Linear(8, 2))
        trainer = {trainer}(model=model, args={config}(output_dir="out", deepspeed={deepspeed}))
    """
    for trainer, config in (("Trainer", "TrainingArguments"), ("SFTTrainer", "SFTConfig")):
        for deepspeed, stage, says in (('{"zero_optimization": {"stage": 2}}', 2, "DeepSpeed ZeRO-2 over the data-parallel"),
                                       ('{"zero_optimization": {"stage": 3, "offload_param": {"device": "cpu"}}}', 3,
                                        "CPU offload not modelled"),
                                       ('"configs/ds_z3_offload.json"', 3, "ZeRO-3 by its name over the data-parallel"),
                                       ('"ds_config.json"', None, "`ds_config.json`, which is not read (--zero sets its stage)")):
            report = run(source.format(trainer=trainer, config=config, deepspeed=deepspeed))
            (model,) = [m for m in report.models if m.plan]
            assert model.plan.get("zero") == stage and any(says in note for note in model.tree.notes)
    # A trainer's stage over 8 GPUs, and dropped, not refused, where --mode asks for inference
    path = tmp_path / "train.py"
    path.write_text(textwrap.dedent(source.format(trainer="Trainer", config="TrainingArguments",
                                                  deepspeed='{"zero_optimization": {"stage": 3}}')))
    cli = [sys.executable, "-m", "lsp_count", str(path), "--json"]
    sharded = _subprocess.run(cli + ["--gpus", "8"], capture_output=True, text=True)
    assert sharded.returncode == 0 and '"zero": 3' in sharded.stdout and "ZeRO-3 \\u00f7 8" in sharded.stdout
    inference = _subprocess.run(cli + ["--mode", "inference"], capture_output=True, text=True)
    assert inference.returncode == 0 and '"zero": 0' in inference.stdout, inference.stderr


def test_a_peft_model_given_to_a_trl_trainer_with_a_peft_config_raises_as_trl_does() -> None:
    report = run("""
        import torch.nn as nn
        from peft import LoraConfig, get_peft_model
        from trl import SFTTrainer


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = nn.Linear(4, 4)


        def main():
            model = get_peft_model(Net(), LoraConfig(r=2, target_modules=["proj"]))
            trainer = SFTTrainer(model=model, peft_config=LoraConfig(r=2, target_modules=["proj"]))


        if __name__ == "__main__":
            main()
    """)
    assert "You passed a `PeftModel` instance together with a `peft_config`" in lc101(report)["trainer in main()"]


def test_an_object_holding_a_model_no_name_holds_has_it_counted_as_its_model() -> None:
    report = run("""
        import torch.nn as nn


        class Engine:
            def __init__(self, width):
                self.model = nn.Sequential(nn.Linear(width, width), nn.ReLU())
                self.steps = 0


        engine = Engine(3)
        shared = Engine(2)
        head = shared.model
    """)
    assert counts(report) == {"engine.model": (12, 12), "head": (6, 6)}


def test_sys_argv_is_the_script_s_name_and_no_arguments() -> None:
    # `len(sys.argv)` raised "object of type a module or value has no len()"; HfArgumentParser's scripts
    # and `parse_args(sys.argv[1:])` read it. The command line is the one that gives no arguments.
    report = run("""
        import argparse
        import sys

        import torch.nn as nn

        width = int(sys.argv[1]) if len(sys.argv) > 1 else 8
        parser = argparse.ArgumentParser()
        parser.add_argument("--depth", type=int, default=3)
        args = parser.parse_args(sys.argv[1:])
        sys.argv.append("--extra")  # one list: what the code adds, it reads back
        model = nn.Sequential(*[nn.Linear(width, width) for _ in range(args.depth + len(sys.argv) - 2)])
        head = nn.Linear(2 if sys.argv[0] == "train.py" else 1, 1)
    """)
    assert counts(report) == {"model": (3 * 72, 3 * 72), "head": (3, 3)}
    (note,) = [p.message for p in report.problems if p.code == "LC106"]
    assert "as for a command line that gives none (--script-args gives one): `sys.argv` (line 7)" in note


HF_ARGUMENTS = """
from dataclasses import dataclass, field
from typing import Optional

import transformers


@dataclass
class ModelArguments:
    {extra}
    model_name_or_path: Optional[str] = field(default={default})


@dataclass
class TrainingArguments(transformers.TrainingArguments):
    model_max_length: int = field(default=512)


def train():
    parser = transformers.HfArgumentParser((ModelArguments, TrainingArguments))
    model_args, training_args = parser.parse_args_into_dataclasses()
    model = transformers.AutoModelForCausalLM.from_pretrained(model_args.model_name_or_path)
    width = parser.parse_dict({{"model_name_or_path": "x", "output_dir": "out"}}, allow_extra_keys=True)[0]
    probe = torch.nn.Linear(2 if width.model_name_or_path == "x" else 1, 1)


if __name__ == "__main__":
    train()
"""


def _real_hf_parse(text: str):
    """What transformers' own HfArgumentParser makes of a command line that gives no arguments."""
    import types

    import transformers

    module = types.ModuleType("hf_arguments")
    sys.modules["hf_arguments"] = module  # (dataclasses look their module up)
    try:
        exec(compile("import torch\n" + text, "script.py", "exec"), module.__dict__)  # noqa: S102 - the test's own script
        return transformers.HfArgumentParser(module.ModelArguments).parse_args_into_dataclasses(args=[])[0]
    finally:
        del sys.modules["hf_arguments"]


def test_hf_argument_parser_s_dataclasses_are_made_with_their_defaults() -> None:
    # Stanford Alpaca's and FastChat's train.py: the model named by a field's default. transformers'
    # own HfArgumentParser (its argparse built from the fields' types) was not followed.
    text = HF_ARGUMENTS.format(default='"facebook/opt-125m"', extra="")
    assert _real_hf_parse(text).model_name_or_path == "facebook/opt-125m"
    loaded = run("""
        from transformers import AutoModelForCausalLM
        model = AutoModelForCausalLM.from_pretrained("facebook/opt-125m")
    """)
    report = run("import torch\n" + text)
    assert counts(report) == {"model in train()": counts(loaded)["model"], "probe in train()": (3, 3)}
    assert not [p for p in report.problems if p.severity != "info"]


def test_hf_argument_parser_s_required_and_unset_arguments_are_said() -> None:
    import pytest

    required = HF_ARGUMENTS.format(default='"facebook/opt-125m"', extra='data_path: str = field(metadata={"help": "x"})')
    with pytest.raises(SystemExit):  # argparse exits: --data_path is required
        _real_hf_parse(required)
    assert "the argument `--data_path` is required" in lc101(run("import torch\n" + required))["model in train()"]
    # run_clm.py: `model_name_or_path` defaults to None; from_pretrained(None) raises.
    unset = HF_ARGUMENTS.format(default="None", extra="")
    assert _real_hf_parse(unset).model_name_or_path is None
    assert "is given None for the model's name or path" in lc101(run("import torch\n" + unset))["model in train()"]


PEFT_SCRIPT = """
from peft import LoraConfig, TaskType, get_peft_model
from transformers import AutoModelForCausalLM, AutoTokenizer

tokenizer = AutoTokenizer.from_pretrained("Qwen/Qwen2.5-0.5B")
model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B")
{before}
model = get_peft_model(model, LoraConfig(task_type={task}, r=8, target_modules=["q_proj", "v_proj"]))
"""


def test_a_peft_task_type_given_as_its_enum_counts_as_its_string() -> None:
    # PEFT's docs write `task_type=TaskType.CAUSAL_LM`: peft checks it with `not in MAPPING.keys()`, a
    # dict view the analyser did not search ("is not followed"); a str enum's member is its value.
    as_text = run(PEFT_SCRIPT.format(before="", task='"CAUSAL_LM"'))
    assert counts(as_text) == {"model": (494_573_440, 540_672)}  # (peft's own count: test_lora_parity.py)
    assert counts(run(PEFT_SCRIPT.format(before="", task="TaskType.CAUSAL_LM"))) == counts(as_text)


def test_a_config_given_a_tokenizer_s_id_and_a_size_from_the_tokenizer() -> None:
    # `model.config.pad_token_id = tokenizer.pad_token_id` (trl's and peft's examples) made peft's
    # config.to_dict() stop at "isinstance on an unresolved value"; a tokenizer's ids are numbers the
    # analyser does not read, which change no count. A size made from one says so.
    plain = counts(run(PEFT_SCRIPT.format(before="", task="TaskType.CAUSAL_LM")))
    padded = run(PEFT_SCRIPT.format(before="model.config.pad_token_id = tokenizer.pad_token_id\n"
                                           "tokenizer.pad_token = tokenizer.eos_token", task="TaskType.CAUSAL_LM"))
    assert counts(padded) == plain
    resized = run(PEFT_SCRIPT.format(before="model.resize_token_embeddings(len(tokenizer))", task='"CAUSAL_LM"'))
    assert "`AutoTokenizer.from_pretrained('Qwen/Qwen2.5-0.5B')`'s files are not read by the analyser" in \
        lc101(resized)["model"]


def test_a_model_a_function_of_the_script_builds_with_a_library_not_read_is_said() -> None:
    # The torchvision tutorial's `model = build_model().to(device)`, torchvision not installed: "no model
    # found" before; the function's own `models.resnet50(...)` makes its value a model.
    report = run("""
        import torch
        from torchvision import models


        def build_model():
            model = models.resnet50(weights=None)
            model.fc = torch.nn.Linear(model.fc.in_features, 10)
            return model


        def load_data():
            return [1, 2, 3]


        def main():
            model = build_model().to("cpu")
            data = load_data()


        if __name__ == "__main__":
            main()
    """, path="/nonexistent/train.py")
    assert not report.models
    assert set(lc101(report)) == {"model in main()"}
    assert "`torchvision.models.resnet50`" in lc101(report)["model in main()"]


DDP_TUTORIAL = """
    import os

    import torch
    import torch.distributed as dist
    import torch.multiprocessing as mp
    import torch.nn as nn
    from torch.nn.parallel import DistributedDataParallel as DDP


    class ToyModel(nn.Module):
        def __init__(self):
            super().__init__()
            self.net1 = nn.Linear(10, 10)
            self.relu = nn.ReLU()
            self.net2 = nn.Linear(10, 5)


    def demo_basic(rank, world_size, width):
        os.environ["MASTER_ADDR"] = "localhost"
        dist.init_process_group("gloo", rank=rank, world_size=world_size)
        model = ToyModel().to(rank)
        ddp_model = DDP(model, device_ids=[rank])
        head = nn.Linear(width, rank + 1)
        dist.destroy_process_group()


    def run_demo(demo_fn, world_size):
        mp.spawn(demo_fn, args=(world_size, 7), nprocs=world_size, join=True)


    if __name__ == "__main__":
        n_gpus = torch.cuda.device_count()
        assert n_gpus >= 2, f"Requires at least 2 GPUs to run, but got {n_gpus}"
        run_demo(demo_basic, n_gpus)
"""


def test_a_function_mp_spawn_starts_is_followed_as_its_first_process_runs_it() -> None:
    # PyTorch's DDP tutorial: the model is built in the function `mp.spawn` runs in each process,
    # given its rank first (0 in the first), then `args`; the DDP wrapper holds the same parameters.
    report = run(DDP_TUTORIAL)
    assert counts(report) == {"ToyModel": (165, 165), "model in demo_basic()": (165, 165),
                              "head in demo_basic()": (7 * 1 + 1, 7 * 1 + 1)}
    model = next(m for m in report.models if m.name == "model in demo_basic()")
    assert "the same module is also named `ddp_model in demo_basic()`" in model.tree.notes
    notes = [p.message for p in report.problems if p.code == "LC106"]
    assert any("`demo_basic` is followed as `mp.spawn` runs it in its first process" in n for n in notes), notes
    assert not [p for p in report.problems if p.severity != "info"]


def test_a_function_fabric_launch_runs_is_followed_with_the_fabric() -> None:
    # Lightning Fabric's `fabric.launch(train, *args)` calls `train(fabric, *args)`; a model built there
    # was a local of a call, never reported.
    report = run("""
        import torch
        from torch import nn
        import lightning as L


        def train(fabric, width):
            model = nn.Sequential(nn.Linear(width, 64), nn.ReLU(), nn.Linear(64, 10))
            optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
            model, optimizer = fabric.setup(model, optimizer)


        if __name__ == "__main__":
            fabric = L.Fabric(accelerator="cuda", devices=8, strategy="ddp")
            fabric.launch(train, 32)
    """)
    assert counts(report) == {"model in train()": (32 * 64 + 64 + 64 * 10 + 10,) * 2}
    # (Fabric's default precision, "32-true", and no word of another: float32 throughout)
    assert report.models[0].plan == {"mode": "train", "optimizer": "adamw-fp32", "dtype": "float32"}
    assert any("`train` is followed as `fabric.launch` runs it" in p.message for p in report.problems)


NANOGPT_META = """
    import os
    import pickle

    from torch import nn

    data_dir = os.path.join("data", "shakespeare_char")
    meta_vocab_size = None
    meta_path = os.path.join(data_dir, "meta.pkl")
    if os.path.exists(meta_path):
        with open(meta_path, "rb") as f:
            meta = pickle.load(f)
        meta_vocab_size = meta["vocab_size"]
    vocab = meta_vocab_size if meta_vocab_size is not None else 50304
    model = nn.Embedding(vocab, 8)
"""


def test_a_script_s_own_files_are_asked_of_its_folder(tmp_path) -> None:
    # nanoGPT's train.py takes its vocabulary from data/<dataset>/meta.pkl where that file is: the
    # script's folder as it is now (where it runs), said in LC106; a file there that the analysis would
    # have to read (a pickle) is not known. A path outside the folder is not asked.
    script = tmp_path / "train.py"
    report = analyze_text(textwrap.dedent(NANOGPT_META), str(script), AnalyzeOptions())
    assert counts(report) == {"model": (50304 * 8,) * 2}
    assert any("counted with the script's folder as it is now" in p.message and
               "os.path.exists('data/shakespeare_char/meta.pkl')" in p.message for p in report.problems)
    (tmp_path / "data" / "shakespeare_char").mkdir(parents=True)
    (tmp_path / "data" / "shakespeare_char" / "meta.pkl").write_bytes(b"\x80\x04N.")
    there = analyze_text(textwrap.dedent(NANOGPT_META), str(script), AnalyzeOptions())
    assert not there.models and "model" in lc101(there)
    outside = analyze_text(textwrap.dedent(NANOGPT_META).replace('os.path.join("data", "shakespeare_char")', '"../data"'),
                           str(script), AnalyzeOptions())
    assert not outside.models and "os.path.exists" in lc101(outside)["model"]


def test_an_if_of_the_entry_point_is_followed_statement_by_statement() -> None:
    # run_clm's `else:` branch builds the model, then logs its size with `p.data_ptr()`, which the
    # analyser does not follow: that statement's names are lost, not the model.
    report = run("""
        import torch.nn as nn


        def main(name=None):
            if name:
                model = nn.Linear(8, 8)
            else:
                model = nn.Linear(4, 4)
                n_params = sum({p.data_ptr(): p.numel() for p in model.parameters()}.values())
                head = nn.Linear(2, n_params)


        if __name__ == "__main__":
            main()
    """)
    assert counts(report) == {"model in main()": (20, 20)}
    assert "head in main()" in lc101(report)


def test_a_model_sharded_with_fsdp_is_the_model() -> None:
    # FSDP(model) registers the model as `_fsdp_wrapped_module` (its parameters, flattened, are the
    # model's); FSDP2's fully_shard(model) shards the module's own parameters in place.
    report = run("""
        import torch
        import torch.nn as nn
        from torch.distributed.fsdp import FullyShardedDataParallel as FSDP, fully_shard

        if __name__ == "__main__":
            net = nn.Linear(4, 4)
            model = FSDP(net)
            optimizer = torch.optim.AdamW(model.parameters())
            other = nn.Sequential(nn.Linear(4, 4), nn.Linear(4, 4))
            for layer in other:
                fully_shard(layer)
            fully_shard(other)
    """)
    assert counts(report) == {"net": (20, 20), "other": (40, 40)}
    net = next(m for m in report.models if m.name == "net")
    assert "the same module is also named `model`" in net.tree.notes
    assert net.plan == {"mode": "train", "optimizer": "adamw-fp32", "dtype": "float32", "zero": 3}  # FULL_SHARD


def test_an_ema_copy_updated_in_the_loop_keeps_its_count() -> None:
    # torch's AveragedModel deep-copies the model; `update_parameters` averages values into its own
    # parameters (it was "a method the analyser does not follow", LC101).
    report = run("""
        import torch
        from torch import nn
        from torch.optim.swa_utils import AveragedModel, get_ema_multi_avg_fn

        if __name__ == "__main__":
            model = nn.Sequential(nn.Linear(8, 16), nn.Linear(16, 4))
            ema = AveragedModel(model, multi_avg_fn=get_ema_multi_avg_fn(0.999))
            optimizer = torch.optim.AdamW(model.parameters())
            for step in range(3):
                optimizer.step()
                ema.update_parameters(model)
    """)
    assert counts(report) == {"model": (212, 212), "ema": (212, 212)}
    assert not [p for p in report.problems if p.severity != "info"]


def test_a_module_s_names_are_led_by_the_one_given_first() -> None:
    # nanoGPT's train.py keeps `unoptimized_model = model` before `model = torch.compile(model)`: the
    # model is `model` (assigned first), though `unoptimized_model` is assigned last before it.
    header = "import torch\nfrom torch import nn\n\n"
    body = "model = nn.Linear(4, 4)\nunoptimized_model = model\nmodel = torch.compile(model)\nraw_model = model\n"
    module_level = run(header + body)
    in_main = run(header + "def main():\n" + textwrap.indent(body, "    ") + "\n\nif __name__ == '__main__':\n    main()\n")
    for report, name in ((module_level, "model"), (in_main, "model in main()")):
        (model,) = report.models
        assert model.name == name and model.tree.total == 20
        suffix = name[len("model"):]
        assert f"the same module is also named `unoptimized_model{suffix}`, `raw_model{suffix}`" in model.tree.notes


HF_GIVEN = """
import torch
from dataclasses import dataclass, field

from transformers import HfArgumentParser


@dataclass
class Arguments:
    hidden: int = field(default=8)
    rate: float = 0.1
    wide: bool = False
    name: str = "base"


def main():
    (arguments,) = HfArgumentParser(Arguments).parse_args_into_dataclasses(args={given})
    model = torch.nn.Linear(arguments.hidden * (2 if arguments.wide else 1), 3 if arguments.name == "big" else 1,
                            bias=arguments.rate > 0.3)


if __name__ == "__main__":
    main()
"""


def test_hf_argument_parser_parses_the_arguments_the_code_gives() -> None:
    # run_glue in a notebook: `parse_args_into_dataclasses(args=[...])`, each value converted by its
    # field's type, a bool's bare flag True, as transformers' own parser makes them.
    import types

    import transformers

    given = ["--hidden", "24", "--rate=0.5", "--wide", "--name", "big"]
    module = types.ModuleType("hf_given")
    sys.modules["hf_given"] = module  # (dataclasses look their module up)
    try:
        exec(compile(HF_GIVEN.format(given=[]), "script.py", "exec"), module.__dict__)  # noqa: S102 - the test's own script
        (real,) = transformers.HfArgumentParser(module.Arguments).parse_args_into_dataclasses(args=given)
    finally:
        del sys.modules["hf_given"]
    assert (real.hidden, real.rate, real.wide, real.name) == (24, 0.5, True, "big")
    report = run(HF_GIVEN.format(given=given))
    assert counts(report) == {"model in main()": (48 * 3 + 3,) * 2}
    unused = run(HF_GIVEN.format(given=["--hidden", "24", "--depth", "3"]))
    assert "Some specified arguments are not used by the HfArgumentParser: ['--depth', '3']" in lc101(unused)[
        "model in main()"]


HF_OPTIONAL = """{future}
from dataclasses import dataclass, field
from typing import Optional

import torch
from transformers import HfArgumentParser


@dataclass
class Arguments:
    hidden: {optional_int} = field(default=None, metadata={{"help": "the width"}})
    scale: {optional_float} = None


def main():
    (arguments,) = HfArgumentParser(Arguments).parse_args_into_dataclasses(args={given})
    model = torch.nn.Linear(arguments.hidden, int(arguments.hidden * arguments.scale))


if __name__ == "__main__":
    main()
"""


@pytest.mark.parametrize(("future", "optional_int", "optional_float"), [
    ("", "Optional[int]", "Optional[float]"),
    ("", "int | None", "float | None"),
    ("from __future__ import annotations", "Optional[int]", "float | None"),  # Field.type is the text
])
def test_hf_argument_parser_converts_by_the_field_s_annotation(future, optional_int, optional_float) -> None:
    # A field whose default is None (`hidden: Optional[int] = None`, as HF's example scripts declare
    # most): transformers converts its value by the annotation's type, not the default's.
    import types

    import transformers

    given = ["--hidden", "24", "--scale", "1.5"]
    text = HF_OPTIONAL.format(future=future, optional_int=optional_int, optional_float=optional_float, given=given)
    module = types.ModuleType("hf_optional")
    sys.modules["hf_optional"] = module
    try:
        exec(compile(text, "script.py", "exec"), module.__dict__)  # noqa: S102 - the test's own script
        (real,) = transformers.HfArgumentParser(module.Arguments).parse_args_into_dataclasses(args=given)
    finally:
        del sys.modules["hf_optional"]
    assert (real.hidden, real.scale) == (24, 1.5)
    assert counts(run(text)) == {"model in main()": (24 * 36 + 36,) * 2}


def test_run_clm_s_list_of_every_model_type_does_not_use_up_the_files_read() -> None:
    # HF's run_clm / run_mlm: `list(MODEL_FOR_CAUSAL_LM_MAPPING.keys())` loads every config module of
    # transformers (more files than one statement may read: not followed, and nothing of it half
    # read is kept), whose model types only a field's help text uses (a field's metadata is left
    # out where it is not followed): the model is still counted, as transformers builds it.
    report = run("""
        from dataclasses import dataclass, field
        from typing import Optional

        from transformers import MODEL_FOR_CAUSAL_LM_MAPPING, GPT2Config, GPT2LMHeadModel, HfArgumentParser

        MODEL_CONFIG_CLASSES = list(MODEL_FOR_CAUSAL_LM_MAPPING.keys())
        MODEL_TYPES = tuple(conf.model_type for conf in MODEL_CONFIG_CLASSES)


        @dataclass
        class ModelArguments:
            n_layer: Optional[int] = field(default=2, metadata={"help": "One of: " + ", ".join(MODEL_TYPES)})


        def main():
            (model_args,) = HfArgumentParser(ModelArguments).parse_args_into_dataclasses()
            model = GPT2LMHeadModel(GPT2Config(n_layer=model_args.n_layer, n_embd=64, n_head=2))


        if __name__ == "__main__":
            main()
    """)
    loaded = run("""
        from transformers import GPT2Config, GPT2LMHeadModel
        model = GPT2LMHeadModel(GPT2Config(n_layer=2, n_embd=64, n_head=2))
    """)
    assert counts(report) == {"model in main()": counts(loaded)["model"]}
    assert not [p for p in report.problems if p.severity != "info"]


def test_a_statement_of_the_entry_point_that_raises_is_a_warning_at_its_line() -> None:
    # Python stops the script at the first; the analysis reads on, so the models after it are
    # still counted. A statement that assigns a model and raises has the name's own problem only.
    report = run("""
        import torch
        from torch import nn


        def main():
            encoder = nn.Linear(4, 8)
            assert encoder.out_features == 4, "widths differ"
            head = nn.Linear(8, 2)
            broken = nn.Linear(8, 2, bias=None, device="cpu", dtype=int)
            cfg = {"layers": 2}
            depth = cfg["depth"]


        if __name__ == "__main__":
            main()
    """)
    assert counts(report) == {"encoder in main()": (40, 40), "head in main()": (18, 18)}
    raised = sorted((p.span.start.line, p.severity, p.code, p.message) for p in report.problems
                    if "running the script raises here" in p.message)
    assert [(line, severity, code) for line, severity, code, _ in raised] == [
        (7, "warning", "LC101"), (11, "warning", "LC101")]
    assert "the assertion on line 8 fails: `encoder.out_features == 4` (widths differ)" in raised[0][3]
    assert "KeyError" in raised[1][3] and "Python stops the script at this line" in raised[1][3]
    assert [p.span.start.line for p in report.problems if "`broken" in p.message] == [9]
    assert not any("running the script raises" in p.message and p.span.start.line == 9 for p in report.problems)


def test_what_the_script_raises_after_asking_of_the_machine_is_a_note() -> None:
    # PyTorch's DDP tutorial asserts two GPUs: the analysis answers as on a machine without one, so
    # where the script runs it may not raise.
    report = run("""
        import torch
        from torch import nn

        if __name__ == "__main__":
            n_gpus = torch.cuda.device_count()
            assert n_gpus >= 2, f"Requires at least 2 GPUs to run, but got {n_gpus}"
            model = nn.Linear(4, 4)
    """)
    assert counts(report) == {"model": (20, 20)}
    (note,) = [p for p in report.problems if "running the script raises here" in p.message]
    assert (note.severity, note.code, note.span.start.line) == ("info", "LC106", 6)
    assert "without a GPU" in note.message and "Requires at least 2 GPUs to run, but got 0" in note.message


def test_a_library_the_analyser_reads_as_its_own_short_version_raises_in_its_own_words() -> None:
    # transformers' Trainer (shims/transformers_trainer.py) given neither a model nor model_init:
    # transformers' error, not a line of the analyser's shim.
    report = run("""
        from transformers import GPT2Config, GPT2LMHeadModel, Trainer, TrainingArguments


        def main():
            model = GPT2LMHeadModel(GPT2Config(n_embd=64, n_layer=2, n_head=2, vocab_size=512))
            trainer = Trainer(args=TrainingArguments(output_dir="out"))


        if __name__ == "__main__":
            main()
    """)
    assert list(counts(report)) == ["model in main()"]
    (raised,) = [p for p in report.problems if "running the script raises here" in p.message]
    assert raised.span.start.line == 6 and raised.severity == "warning"
    assert "transformers raises RuntimeError: `Trainer` requires either a `model` or `model_init` argument" in \
        raised.message and ".py" not in raised.message
