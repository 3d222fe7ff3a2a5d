"""YAML documents: fine-tuning configs (axolotl, LLaMA-Factory, torchtune, LitGPT, NeMo),
Hugging Face configs written as YAML, and configs that name a model class of the project
(Hydra's ``_target_``, LightningCLI's ``class_path``; counted by the Python analyser:
pymodel/class_configs.py) -> FileReport with counts and a
training plan."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path, PurePath

from lsp_count.core.report import FileReport, ModelReport, relocated, unrecognized
from lsp_count.core.source import Problem, SourceNode
from lsp_count.formats import architectures
from lsp_count.formats.common import (PRECISIONS, Lora, Plan, Reader, base_model, finish, optimizer_name,
                                      zero_stage_from)
from lsp_count.formats.litgpt import LitLora
from lsp_count.formats.freeze import FreezeTuning, freeze_tuning
from lsp_count.formats.lora import LoraTargets
from lsp_count.formats.nemo_peft import nemo_peft
from lsp_count.formats.yaml_reader import read_yaml


def analyze_yaml(text: str, path: str, options) -> FileReport:
    doc = read_yaml(text)
    problems = list(doc.problems)
    root = doc.root
    if root is None:
        return FileReport(path, (), tuple(problems), recognized=bool(problems), lines=doc.lines)
    if not root.is_mapping():
        return unrecognized(path, problems, "no model or training config recognized: the document is not a mapping",
                            root.span, doc.lines, "info")
    kind = detect(root)
    if kind in ("hydra", "lightning_cli"):
        return _class_config(kind, root, text, path, options, problems, doc.lines)
    if kind is None:
        return unrecognized(path, problems, "no model or training config recognized (not axolotl, LLaMA-Factory, "
                            "torchtune, LitGPT, NeMo, a Hugging Face config, a Hydra model config or a LightningCLI config)", root.span, doc.lines, "info")
    reader = Reader(root)
    model = READERS[kind](reader, path, options, problems)
    problems.extend(reader.problems)
    return FileReport(path, (model,) if model is not None else (), tuple(problems), lines=doc.lines)


def _class_config(kind: str, root: SourceNode, text: str, path: str, options, problems: list[Problem],
                  lines) -> FileReport:
    """A config that names the model's class (Hydra's ``_target_``, LightningCLI's ``class_path``),
    built by the Python analyser (pymodel/class_configs.py); its lens and problems at that key."""
    from lsp_count.pymodel import class_configs

    model_node = root.get("model")
    key = "_target_" if kind == "hydra" else "class_path"
    target = root.get(key) or (model_node.get(key) if model_node is not None else None) or root.get("defaults")
    span = target.key_span or target.span  # type: ignore[union-attr]
    if any(p.severity == "error" for p in problems):  # the document's own syntax error, said: counted once it parses
        return FileReport(path, (), tuple(problems), lines=lines)
    try:
        if kind == "hydra":
            model, found, is_model = class_configs.count_hydra_config(text, path, options, span)
        else:
            model, found, is_model = class_configs.count_lightning_cli_config(root.to_python(), path, options, span)
    except Exception as exc:  # noqa: BLE001 - a bug of the analyser on an odd config: said, never a traceback
        problems.append(Problem("error", "LC001", f"lsp-count could not analyse this config: {type(exc).__name__}: "
                                                  f"{exc} (a bug in lsp-count; please report it with the file)", span))
        return FileReport(path, (), tuple(problems), lines=lines)
    if not is_model:  # a data module's, an optimizer's, a trainer's config
        return unrecognized(path, problems, found[0].message, span, lines, "info")
    return FileReport(path, (model,) if model is not None else (), tuple(problems + found), lines=lines)


def detect(root: SourceNode) -> str | None:
    """Which tool wrote this YAML, by the keys each documents."""
    keys = root.value
    assert isinstance(keys, dict)
    model = root.get("model")
    if model is not None and model.is_mapping():
        comp = model.get("_component_")
        if comp is not None and isinstance(comp.value, str) and comp.value.startswith("torchtune.models."):
            return "torchtune"
        if model.get("num_layers") is not None and model.get("hidden_size") is not None:
            return "nemo"
    if "base_model" in keys:
        return "axolotl"
    if "model_name_or_path" in keys and any(k in keys for k in (
            "finetuning_type", "stage", "lora_target", "cutoff_len", "template", "quantization_bit")):
        return "llamafactory"
    if "n_layer" in keys and "n_embd" in keys and "model_type" not in keys:
        return "litgpt"
    if "checkpoint_dir" in keys and any(k in keys for k in ("lora_r", "train", "precision", "quantize")):
        return "litgpt_finetune"
    from lsp_count.core.hf_config import looks_like_config

    if looks_like_config(root):
        return "hf"
    class_path = root.get("class_path") or (model.get("class_path") if model is not None and model.is_mapping() else None)
    if class_path is not None and isinstance(class_path.value, str):
        return "lightning_cli"  # LightningCLI / jsonargparse: `model: {class_path: ..., init_args: ...}`
    target = root.get("_target_") or (model.get("_target_") if model is not None and model.is_mapping() else None)
    defaults = root.get("defaults")
    if target is not None and isinstance(target.value, str) or defaults is not None and isinstance(defaults.value, tuple):
        return "hydra"  # a Hydra config that instantiates a model (`_target_: src.models.Net`), or composes one
    return None


# --- Hugging Face config as YAML -------------------------------------------------------------------


def read_hf(reader: Reader, path: str, options, problems: list[Problem]) -> ModelReport | None:
    from lsp_count.core.hf_config import count_config

    report, count_problems = count_config(reader.root, PurePath(path).stem)
    problems.extend(count_problems)
    return report


# --- axolotl ---------------------------------------------------------------------------------------


def read_axolotl(r: Reader, path: str, options, problems: list[Problem]) -> ModelReport | None:
    base = base_model(r, "base_model", options, problems)
    if base is None:
        return None
    plan = Plan()
    adapter = (r.str("adapter") or "").lower() or None
    four, eight = r.bool("load_in_4bit"), r.bool("load_in_8bit")
    lora = None
    if adapter in ("lora", "qlora"):
        rank = r.int("lora_r")
        if rank is None and r.node("lora_r") is None:
            problems.append(Problem("error", "LC102", "adapter: lora needs lora_r (the LoRA rank)", r.span("adapter")))
            return None
        if rank is None:
            return None
        linear = r.bool("lora_target_linear")
        targets_node = r.node("lora_target_modules")
        if linear:
            targets, tspan = LoraTargets(), r.span("lora_target_linear")
            if targets_node is not None and targets_node.value:
                problems.append(Problem("info", "LC106", "lora_target_linear: true adapts every linear layer; "
                                        "lora_target_modules adds nothing", r.span("lora_target_modules")))
        elif targets_node is not None and isinstance(targets_node.value, str):
            targets, tspan = LoraTargets(pattern=targets_node.value), r.span("lora_target_modules")
        elif targets_node is not None and isinstance(targets_node.value, tuple):
            targets, tspan = LoraTargets(names=r.strs("lora_target_modules")), r.span("lora_target_modules")
        else:
            problems.append(Problem("error", "LC102", "name the LoRA targets: lora_target_modules (a list or a regex) "
                                    "or lora_target_linear: true", r.span("adapter")))
            return None
        alpha = r.value("lora_alpha")
        lora = Lora(rank, alpha if isinstance(alpha, (int, float)) and not isinstance(alpha, bool) else None,
                    targets, tspan, dora=bool(r.bool("peft_use_dora")))
        plan.set("lora_rank", rank, r.span("lora_r"))
        plan.set("lora_alpha", lora.alpha, r.span("lora_alpha"))
        quantized = adapter == "qlora" or four or eight
        if quantized:
            # axolotl loads a qlora base as bitsandbytes NF4 with double quantization.
            dtype = "int8" if eight and not four and adapter != "qlora" else "nf4-dq"
            plan.set("mode", "qlora", r.span("adapter"))
            plan.set("dtype", dtype, r.span("load_in_8bit" if dtype == "int8" else "adapter"))
            plan.set("quantization", dtype)
            if adapter == "qlora" and not four:
                problems.append(Problem("warning", "LC106", "adapter: qlora expects load_in_4bit: true (axolotl refuses it otherwise)",
                                        r.span("adapter")))
        else:
            plan.set("mode", "lora", r.span("adapter"))
    elif adapter is not None:
        problems.append(Problem("warning", "LC106", f"adapter: {adapter} is not modelled; counting a full fine-tune",
                                r.span("adapter")))
        plan.set("mode", "train")
    else:
        plan.set("mode", "train")
    if "dtype" not in plan.values:
        plan.set("dtype", _precision(r, "bf16", "fp16", "tf32"))
    plan.set("context", r.int("sequence_len"), r.span("sequence_len"))
    plan.set("batch", r.int("micro_batch_size"), r.span("micro_batch_size"))
    gc = r.value("gradient_checkpointing")
    if gc is not None:
        # axolotl also takes "unsloth" / "offload" here: still activation recomputation.
        plan.set("gradient_checkpointing", bool(gc) and gc not in ("false", "False"), r.span("gradient_checkpointing"))
    _optimizer(r, "optimizer", plan, problems)
    _zero(r, plan, problems, "deepspeed")
    fsdp = r.node("fsdp")
    if fsdp is not None and fsdp.value:
        # FSDP full_shard shards what ZeRO-3 shards; shard_grad_op what ZeRO-2 does.
        text = str(fsdp.to_python())
        stage = 3 if "full_shard" in text else 2 if "shard_grad_op" in text else None
        plan.set("zero", stage, r.span("fsdp"))
    return finish(base, lora, plan, problems, r.span("base_model"))


def _precision(r: Reader, bf16_key: str, fp16_key: str, _tf32: str) -> str | None:
    bf = r.value(bf16_key)
    if bf is True or bf == "auto":
        return "bfloat16"
    if r.value(fp16_key) is True:
        return "float16"
    return None


def _optimizer(r: Reader, key: str, plan: Plan, problems: list[Problem]) -> None:
    raw = r.str(key)
    if raw is None:
        return
    name = optimizer_name(raw, r.options("optim_args"))
    if name is None:
        problems.append(Problem("info", "LC106", f"optimizer {raw} is not modelled; memory assumes AdamW (16 bytes per trainable parameter in mixed precision)",
                                r.span(key)))
        return
    plan.set("optimizer", name, r.span(key))


def _zero(r: Reader, plan: Plan, problems: list[Problem], key: str) -> None:
    ds = r.value(key)
    if isinstance(ds, str):
        stage = zero_stage_from(ds)
        if stage is None:
            problems.append(Problem("info", "LC106", f"cannot tell the ZeRO stage from {ds}", r.span(key)))
        else:
            plan.set("zero", stage, r.span(key))
    elif isinstance(ds, dict):
        stage = r.int(f"{key}.zero_optimization.stage", minimum=0)
        plan.set("zero", stage, r.span(key))


# --- LLaMA-Factory ---------------------------------------------------------------------------------


def read_llamafactory(r: Reader, path: str, options, problems: list[Problem]) -> ModelReport | None:
    base = base_model(r, "model_name_or_path", options, problems)
    if base is None:
        return None
    plan = Plan()
    ftype = (r.str("finetuning_type") or "lora").lower()  # LLaMA-Factory's default finetuning_type is lora
    lora = None
    qbit = r.int("quantization_bit")
    if ftype == "lora":
        rank = r.int("lora_rank") or 8  # FinetuningArguments.lora_rank default
        target = r.node("lora_target")
        names = r.strs("lora_target") or ("all",)
        targets = LoraTargets() if [n.lower() for n in names] == ["all"] else LoraTargets(names=names)
        extra = r.strs("additional_target")
        if extra:
            problems.append(Problem("info", "LC106", "additional_target modules are trained in full; not counted here",
                                    r.span("additional_target")))
        alpha = r.value("lora_alpha")
        lora = Lora(rank, alpha if isinstance(alpha, (int, float)) else rank * 2.0, targets,
                    r.span("lora_target") if target is not None else r.span("finetuning_type"),
                    dora=bool(r.bool("use_dora")))
        plan.set("lora_rank", rank, r.span("lora_rank"))
        plan.set("lora_alpha", lora.alpha, r.span("lora_alpha"))
        if qbit in (4, 8):
            dq = r.bool("double_quantization")
            dtype = "int8" if qbit == 8 else ("nf4" if dq is False else "nf4-dq")
            plan.set("mode", "qlora", r.span("quantization_bit"))
            plan.set("dtype", dtype, r.span("quantization_bit"))
            plan.set("quantization", dtype)
        else:
            plan.set("mode", "lora", r.span("finetuning_type"))
    elif ftype == "full":
        plan.set("mode", "train", r.span("finetuning_type"))
    elif ftype == "freeze":
        frozen = _llamafactory_freeze(r, base, qbit, problems)
        if frozen is None:
            return None
        base = frozen
        plan.set("mode", "train", r.span("finetuning_type"))
    else:
        problems.append(Problem("warning", "LC106", f"finetuning_type: {ftype} is not modelled; counting a full fine-tune",
                                r.span("finetuning_type")))
        plan.set("mode", "train")
    if "dtype" not in plan.values:
        plan.set("dtype", _precision(r, "bf16", "fp16", "tf32"))
    plan.set("context", r.int("cutoff_len") or 2048, r.span("cutoff_len"))  # DataArguments.cutoff_len default
    plan.set("batch", r.int("per_device_train_batch_size") or 8, r.span("per_device_train_batch_size"))
    # LLaMA-Factory turns gradient checkpointing on unless disable_gradient_checkpointing is set.
    plan.set("gradient_checkpointing", not bool(r.bool("disable_gradient_checkpointing")),
             r.span("disable_gradient_checkpointing"))
    _optimizer(r, "optim", plan, problems)
    _zero(r, plan, problems, "deepspeed")
    return finish(base, lora, plan, problems, r.span("model_name_or_path"))


def _llamafactory_freeze(r: Reader, base: ModelReport, qbit: int | None, problems: list[Problem]) -> ModelReport | None:
    """The base under LLaMA-Factory's freeze tuning (formats/freeze.py); None after an error. A model it is not
    modelled for is counted as a full fine-tune, with a warning."""
    if qbit is not None:
        problems.append(Problem("error", "LC102", "finetuning_type: freeze cannot train a quantized model (LLaMA-Factory: "
                                "\"Quantized models can only be used for the LoRA or OFT tuning\"); drop quantization_bit",
                                r.span("quantization_bit")))
        return None
    # (FreezeArguments: freeze_trainable_layers may be 0 or negative, the first layers)
    layers = r.int("freeze_trainable_layers", minimum=-(1 << 31))
    if layers is None and r.node("freeze_trainable_layers") is not None and r.value("freeze_trainable_layers") is not None:
        return None  # (the reader said why)
    setting = FreezeTuning(layers if layers is not None else 2, r.strs("freeze_trainable_modules") or ("all",),
                           r.strs("freeze_extra_modules") or (), bool(r.bool("use_llama_pro")))
    frozen = freeze_tuning(base.tree, base.spec, setting)
    if frozen.tree is None:
        if frozen.which == "finetuning_type":
            problems.append(Problem("warning", "LC106", f"{frozen.error}: counting a full fine-tune",
                                    r.span("finetuning_type")))
            return base
        problems.append(Problem("error", "LC102", frozen.error, r.span(frozen.which) or r.span("finetuning_type")))
        return None
    trained = frozen.tree.trainable
    problems.append(Problem("info", "LC106", f"freeze tuning trains {trained:,} of {frozen.tree.total:,} parameters, "
                            f"those whose names hold {', '.join(frozen.trained) or 'nothing'} (as LLaMA-Factory's "
                            f"_setup_freeze_tuning picks them)", r.span("finetuning_type")))
    return replace(base, tree=frozen.tree, method=base.method + "; LLaMA-Factory freeze tuning")


# --- torchtune -------------------------------------------------------------------------------------


def read_torchtune(r: Reader, path: str, options, problems: list[Problem]) -> ModelReport | None:
    component = r.str("model._component_") or ""
    builder = component.rsplit(".", 1)[-1]
    entry = architectures.torchtune_builder(builder)
    comp_span = r.span("model._component_")
    if entry is None:
        problems.append(Problem("error", "LC101", f"torchtune builder {builder} is not in lsp-count's table "
                                f"(known: {', '.join(architectures.torchtune_families())})", comp_span))
        return None
    hub_id, adapter = entry
    base = base_model(r, "model._component_", options, problems, name=hub_id)
    if base is None:
        return None
    plan = Plan()
    lora = None
    if adapter:
        rank = r.int("model.lora_rank")
        if rank is None:
            problems.append(Problem("error", "LC102", f"{builder} needs model.lora_rank", comp_span))
            return None
        attn = r.strs("model.lora_attn_modules") or ()
        names = [architectures.TORCHTUNE_MODULES.get(a, a) for a in attn]
        if r.bool("model.apply_lora_to_mlp"):
            names += ["gate_proj", "up_proj", "down_proj"]
        if r.bool("model.apply_lora_to_output"):
            names.append("lm_head")
        if not names:
            problems.append(Problem("error", "LC102", "no LoRA targets: set model.lora_attn_modules", comp_span))
            return None
        if base.spec is not None and base.spec.family.model_type == "phi3":
            base = _torchtune_phi3(base)
            problems.append(Problem("info", "LC106", "torchtune builds phi3 with separate q_proj / k_proj / v_proj and "
                                    "w1 / w3 (gate, up) where transformers fuses qkv_proj and gate_up_proj: the base "
                                    "count is the same, and LoRA adapts each part as torchtune's lora_phi3 does "
                                    "(rank r on each, so r·(in+out) per part); counted from torchtune's builder "
                                    "code, equal to torchtune 0.6.1's builds of its phi3 and phi4 recipes", comp_span))
        if "lm_head" in names and not any(t.module == "lm_head" for _p, t, _m, _f in base.tree.root.iter_tensors()):
            problems.append(Problem("error", "LC102", "apply_lora_to_output: this model ties its output to the embeddings; "
                                    "torchtune refuses LoRA on a tied output", r.span("model.apply_lora_to_output")))
            return None
        alpha = r.value("model.lora_alpha")
        lora = Lora(rank, alpha if isinstance(alpha, (int, float)) else None, LoraTargets(names=tuple(names)),
                    r.span("model.lora_attn_modules"), dora=bool(r.bool("model.use_dora")))
        plan.set("lora_rank", rank, r.span("model.lora_rank"))
        plan.set("lora_alpha", lora.alpha, r.span("model.lora_alpha"))
        if adapter == "qlora" or r.bool("model.quantize_base"):
            # torchao NF4: 4-bit codes, blocksize 64, scales quantized again per 256 blocks (as QLoRA's double quant).
            # (`qlora_llama3_8b` is `partial(lora_llama3_8b, quantize_base=True)`: QDoRA configs set it themselves.)
            plan.set("mode", "qlora", comp_span)
            plan.set("dtype", "nf4-dq", comp_span)
            plan.set("quantization", "nf4-dq")
        else:
            plan.set("mode", "lora", comp_span)
    else:
        plan.set("mode", "train", comp_span)
    dtype = PRECISIONS.get((r.str("dtype") or "").lower())
    if "dtype" not in plan.values:
        plan.set("dtype", dtype, r.span("dtype"))
    if dtype in ("bfloat16", "float16"):
        # torchtune's recipes build the model in `dtype` and train it so, without autocast: no fp32 master
        # copy, and the optimizer's states (and LoRA's adapters) in that dtype too.
        plan.set("pure_precision", True, r.span("dtype"))
    plan.set("context", r.int("tokenizer.max_seq_len"), r.span("tokenizer.max_seq_len"))
    plan.set("batch", r.int("batch_size"), r.span("batch_size"))
    plan.set("gradient_checkpointing", r.bool("enable_activation_checkpointing"), r.span("enable_activation_checkpointing"))
    opt = r.str("optimizer._component_")
    if opt is not None:
        name = optimizer_name(opt, r.options("optimizer"))
        if name is None:
            problems.append(Problem("info", "LC106", f"optimizer {opt} is not modelled; memory assumes AdamW",
                                    r.span("optimizer._component_")))
        plan.set("optimizer", name, r.span("optimizer._component_"))
    teacher = r.str("teacher_model._component_")
    if teacher is not None:
        _torchtune_teacher(r, teacher, dtype or "float32", plan, options, problems)
    if r.node("optimizer") is None and not adapter:
        # torchtune's generation, evaluation and quantization recipes' configs (a full model's): every training
        # recipe's has one. (A LoRA builder is for training: its config is LoRA's, optimizer or not.)
        plan.set("mode", "inference", comp_span)
        problems.append(Problem("info", "LC106", "no optimizer: a generation / evaluation / quantization recipe's "
                                "config, estimated for inference", comp_span))
        plan.set("context", r.int("max_seq_length"), r.span("max_seq_length"))  # (the eleuther evaluation's)
    if "context" not in plan.values:
        problems.append(Problem("info", "LC106", "tokenizer.max_seq_len is not set: memory uses the default context",
                                comp_span))
    return finish(base, lora, plan, problems, comp_span, method_note=f"torchtune {builder} = {hub_id}")


def _torchtune_teacher(r: Reader, component: str, dtype: str, plan: Plan, options, problems: list[Problem]) -> None:
    """A knowledge-distillation recipe's teacher: built in the recipe's ``dtype`` (float32 where the
    config sets none, torchtune's ``get_dtype``) and held frozen beside the student, whose report this
    stays; its count is the memory's reference model (reference_model, reference_parameters)."""
    builder = component.rsplit(".", 1)[-1]
    span = r.span("teacher_model._component_")
    entry = architectures.torchtune_builder(builder)
    if entry is None or entry[1]:
        why = "a LoRA builder" if entry is not None else "not in lsp-count's table"
        problems.append(Problem("info", "LC106", f"teacher_model ({builder}) is {why}: it is not counted; the report "
                                "and the memory are the student's (model)", span))
        return
    teacher = base_model(r, "teacher_model._component_", options, problems, name=entry[0])
    if teacher is None:
        return
    count = teacher.tree.root.total
    plan.set("reference_model", dtype, span)
    plan.set("reference_parameters", count, span)
    problems.append(Problem("info", "LC106", f"teacher_model ({builder} = {entry[0]}, {count:,} parameters) is held "
                            f"frozen in {dtype} beside the student: its memory's reference_model line; the report is "
                            f"the student's (model)", span))


def _torchtune_phi3(base: ModelReport) -> ModelReport:
    """Phi-3 as torchtune's phi3 builders lay it out: the fused projections split (torchtune/models/phi3:
    q_proj embed->heads·head_dim, k_proj / v_proj embed->kv_heads·head_dim, w1 / w3 dim->hidden)."""
    from dataclasses import replace as _replace

    from lsp_count.formats.lora import split_fused

    spec = base.spec
    assert spec is not None
    heads, kv = spec.int("num_heads"), spec.int("num_kv_heads")
    head_dim = spec.int("hidden_size") // heads
    tree = split_fused(base.tree, {"qkv_proj": (("q_proj", heads * head_dim), ("k_proj", kv * head_dim),
                                                ("v_proj", kv * head_dim)),
                                   "gate_up_proj": None})
    return _replace(base, tree=tree)


# --- LitGPT ----------------------------------------------------------------------------------------


def read_litgpt(r: Reader, path: str, options, problems: list[Problem]) -> ModelReport | None:
    # model_config.yaml files are named alike; LitGPT writes the model's name into them.
    return architectures.litgpt_model(r, r.str("name") or PurePath(path).stem, problems)


def read_litgpt_finetune(r: Reader, path: str, options, problems: list[Problem]) -> ModelReport | None:
    """A LitGPT fine-tune YAML (``litgpt finetune_lora --config``). The base is the checkpoint
    directory's ``model_config.yaml`` where it is there (LitGPT's own layout, relative to the YAML's
    folder or absolute), counted as LitGPT builds it with litgpt.lora's adapters; else the
    directory's last two parts as a hub id (``checkpoints/meta-llama/Llama-3.2-1B``), counted from
    its transformers config. A ``lora_*`` key makes it LoRA, with finetune/lora.py's defaults
    (rank 8, query and value adapted)."""
    ckpt = r.str("checkpoint_dir") or ""
    plan = Plan()
    lora_keys = [k for k in (r.root.value if isinstance(r.root.value, dict) else {}) if k.startswith("lora_")]
    lit_lora = None
    if lora_keys:
        flags = {key: (r.bool(f"lora_{key}") if r.node(f"lora_{key}") is not None else default)
                 for key, default in (("query", True), ("key", False), ("value", True), ("projection", False),
                                      ("mlp", False), ("head", False))}
        lit_lora = LitLora(r.int("lora_r") or 8, **{k: bool(v) for k, v in flags.items()})
    model_config = _litgpt_model_config(ckpt, path, options)
    if model_config is not None:
        base = _litgpt_checkpoint(model_config, r, lit_lora, problems)
        if base is None:
            return None
    else:
        # LitGPT keeps checkpoints under checkpoints/<org>/<name>; the hub id is the last two parts.
        parts = [p for p in PurePath(ckpt).parts if p not in (".", "checkpoints")]
        hub_id = "/".join(parts[-2:]) if len(parts) >= 2 else ckpt
        # (LitGPT's model never ties its head to the embedding: a config that ties it gets its own)
        base = base_model(r, "checkpoint_dir", options, problems, name=hub_id, untied=True)
        if base is None:
            return None
    lora = None
    if lit_lora is not None:
        span = r.span("lora_r") or r.span(lora_keys[0])
        alpha = r.value("lora_alpha")
        alpha = alpha if isinstance(alpha, (int, float)) else None
        if model_config is None:
            names = [hf for key, hf in architectures.LITGPT_LORA_KEYS if getattr(lit_lora, key.removeprefix("lora_"))]
            if lit_lora.mlp:
                names += ["gate_proj", "up_proj", "down_proj"]
            if not names:
                problems.append(Problem("error", "LC102", "no LoRA targets: every lora_* flag is false", span))
                return None
            lora = Lora(lit_lora.r, alpha, LoraTargets(names=tuple(names)), span)
            problems.append(Problem("info", "LC106", f"no model_config.yaml in {ckpt or 'checkpoint_dir'}: the LoRA "
                                    f"flags adapt the transformers model's {', '.join(names)} (LitGPT's own layout, "
                                    "a fused qkv, is counted from its model_config.yaml)", span))
        else:
            plan.set("lora_targets", list(base.plan.get("lora_targets", [])), span)
        plan.set("lora_rank", lit_lora.r, r.span("lora_r"))
        plan.set("lora_alpha", alpha if alpha is not None else 16, r.span("lora_alpha"))
        quant = (r.str("quantize") or "").lower()
        if quant.startswith("bnb.nf4") or quant.startswith("bnb.int8") or quant.startswith("bnb.fp4"):
            dtype = {"bnb.nf4": "nf4", "bnb.nf4-dq": "nf4-dq", "bnb.int8": "int8", "bnb.fp4": "nf4", "bnb.fp4-dq": "nf4-dq"}.get(quant, "nf4")
            plan.set("mode", "qlora", r.span("quantize"))
            plan.set("dtype", dtype, r.span("quantize"))
            plan.set("quantization", dtype)
        else:
            plan.set("mode", "lora", span)
    else:
        plan.set("mode", "train")
    if "dtype" not in plan.values:
        plan.set("dtype", PRECISIONS.get((r.str("precision") or "").lower()), r.span("precision"))
    if (r.str("precision") or "").lower() in ("bf16-true", "16-true"):
        plan.set("pure_precision", True, r.span("precision"))  # Lightning's "-true": the weights' dtype throughout
    plan.set("context", r.int("train.max_seq_length"), r.span("train.max_seq_length"))
    plan.set("batch", r.int("train.micro_batch_size"), r.span("train.micro_batch_size"))
    return finish(base, lora, plan, problems, r.span("checkpoint_dir"))


def _litgpt_model_config(ckpt: str, path: str, options) -> Path | None:
    """``<checkpoint_dir>/model_config.yaml`` where it is on disk (read, never run)."""
    if not ckpt:
        return None
    folder = Path(ckpt) if Path(ckpt).is_absolute() else Path(options.base_dir or Path(path).parent) / ckpt
    found = folder / "model_config.yaml"
    return found if found.is_file() else None


def _litgpt_checkpoint(model_config: Path, r: Reader, lora: LitLora | None, problems: list[Problem]) -> ModelReport | None:
    """The checkpoint's model_config.yaml counted as LitGPT builds it; its problems located at
    ``checkpoint_dir``."""
    span = r.span("checkpoint_dir")
    try:
        text = model_config.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        problems.append(Problem("error", "LC104", f"cannot read {model_config}: {exc}", span))
        return None
    parsed = read_yaml(text)
    found: list[Problem] = list(parsed.problems)
    report = None
    if not found and parsed.root is not None and parsed.root.is_mapping():
        report = architectures.litgpt_model(Reader(parsed.root), model_config.parent.name, found, lora)
    elif not found:
        found.append(Problem("error", "LC102", "not a mapping of litgpt.Config fields", None))
    problems.extend(Problem(p.severity, p.code, f"{model_config}: {p.message}", span) for p in found)
    if report is None:
        return None
    problems.append(Problem("info", "LC106", f"base: {model_config} (LitGPT's model config)", span))
    return relocated(report, span)


def read_nemo(r: Reader, path: str, options, problems: list[Problem]) -> ModelReport | None:
    report = architectures.nemo_model(r, PurePath(path).stem, problems, options)
    if report is None:
        return None
    return nemo_peft(r, report, problems)


READERS = {
    "hf": read_hf,
    "axolotl": read_axolotl,
    "llamafactory": read_llamafactory,
    "torchtune": read_torchtune,
    "litgpt": read_litgpt,
    "litgpt_finetune": read_litgpt_finetune,
    "nemo": read_nemo,
}
