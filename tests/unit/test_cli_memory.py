"""The CLI's memory and fit flags: output, JSON shape, and exit 2 naming the flag for bad input."""

from __future__ import annotations

import json

import pytest

from lsp_count.cli import main

CONFIG = "examples/llama-3-8b/config.json"


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_default_output_has_table_and_compact_memory(capsys):
    code, out, _ = run(capsys, CONFIG)
    assert code == 0
    assert "8,030,261,248" in out
    assert "memory (inference, bfloat16, context 4,096, batch 1): 16.85 GiB" in out
    assert "kv_cache 0.50" in out


def test_qlora_on_4090(capsys):
    code, out, _ = run(capsys, CONFIG, "--gpu", "RTX-4090", "--mode", "qlora", "--context", "4096")
    assert code == 1  # it does not fit the GPU given
    for name in ("weights", "adapters", "gradients", "optimizer_states", "activations", "logits", "overhead"):
        assert f"\n    {name} " in out
    assert "DOES NOT FIT" in out
    assert "to fit: --gradient-checkpointing fits" in out
    assert "largest context that fits: 1,794" in out


def test_json_memory_and_fits(capsys):
    code, out, _ = run(capsys, CONFIG, "--json", "--gpu", "8xH100-80GB", "--mode", "train", "--zero", "3")
    assert code == 0
    m = json.loads(out)["files"][0]["models"][0]
    mem = m["memory"]
    assert set(mem["weights_bytes"]) >= {"float32", "bfloat16", "nf4-dq", "gguf-q4_k_m"}
    assert mem["weights_bytes"]["bfloat16"] == 2 * 8_030_261_248
    names = [l["name"] for l in mem["lines"]]
    assert names == ["weights", "gradients", "master_weights", "optimizer_states", "activations", "logits", "overhead"]
    assert mem["total_bytes"] == sum(l["bytes"] for l in mem["lines"])
    assert all(isinstance(l["exact"], bool) for l in mem["lines"])
    assert mem["gpus"] == 8
    (fit,) = m["fits"]
    assert fit["fits"] is True and fit["gpus"] == 8
    assert m["compute"]["train_flops"] == 6 * 8_030_261_248 * 20 * 8_030_261_248


def test_json_without_flags_still_has_memory(capsys):
    code, out, _ = run(capsys, CONFIG, "--json")
    m = json.loads(out)["files"][0]["models"][0]
    assert m["memory"]["mode"] == "inference" and m["fits"] == []


@pytest.mark.parametrize("argv, flag", [
    (["--context", "0"], "--context"),
    (["--batch", "-1"], "--batch"),
    (["--tp", "3"], "--tp"),
    (["--mode", "lora", "--lora-targets", "q_proj", "--lora-rank", "5000"], "--lora-rank"),
    (["--gpu", "RTX-4909"], "--gpu"),
    (["--gpu", "0xH100"], "--gpu"),
    (["--dtype", "int3"], "--dtype"),
    (["--zero", "3"], "--zero"),
])
def test_bad_settings_exit_2_naming_the_flag(capsys, argv, flag):
    code, out, err = run(capsys, CONFIG, *argv)
    assert code == 2
    assert f"error: {flag}" in err
    assert "Traceback" not in err


def test_a_model_that_cannot_have_the_settings_is_named_and_the_others_are_estimated(capsys):
    # ConvZoo has no linear layer for LoRA; the file's other classes still get their memory.
    path = "tests/fixtures/pymodels/recurrent.py"
    code, out, err = run(capsys, path, "--mode", "lora")
    assert code == 2
    assert f"{path}:48:7: error: --lora-targets: the model has no linear layers for LoRA to adapt (`ConvZoo`)" in err
    assert out.count("memory per GPU (lora, ") == 3 and "Traceback" not in err
    code, out, _ = run(capsys, path, "--mode", "lora", "--json")
    models = {m["name"]: m for m in json.loads(out)["files"][0]["models"]}
    assert code == 2 and "memory" not in models["ConvZoo"] and "memory" in models["Seq2Seq"]
    assert models["ConvZoo"]["memory_error"] == {"flag": "--lora-targets",
                                                 "message": "the model has no linear layers for LoRA to adapt"}


def test_unknown_gpu_suggests_nearest(capsys):
    _, _, err = run(capsys, CONFIG, "--gpu", "RTX-4909")
    assert "RTX-4090" in err


def test_precision_view(capsys):
    code, out, _ = run(capsys, CONFIG, "--precision")
    assert code == 0
    assert "nf4-dq" in out and "vs fp32" in out


def test_a_reference_model_adds_a_frozen_copy_of_the_weights_in_its_dtype(capsys):
    # TRL's DPO reference model, asked by flag (a script's trainer sets it: tests/parity/test_trl_reference_parity.py)
    code, out, _ = run(capsys, CONFIG, "--mode", "train", "--reference-model", "float32", "--json")
    assert code == 0
    (model,) = json.loads(out)["files"][0]["models"]
    lines = {line["name"]: line["bytes"] for line in model["memory"]["lines"]}
    assert lines["reference_model"] == 4 * model["params"]["total"]
    memory = model["memory"]
    assert (memory["reference_model"], memory["pure_precision"], memory["optimizer"]) == ("float32", False, "adamw")
    code, out, _ = run(capsys, CONFIG, "--mode", "train", "--reference-model", "bfloat16", "--tp", "2", "--gpus", "2")
    assert code == 0 and "reference model bfloat16" in out and "reference_model" in out
    code, out, _ = run(capsys, CONFIG, "--reference-model", "bfloat16")  # inference holds no training copy
    assert code == 0 and "reference_model" not in out
    code, _, err = run(capsys, CONFIG, "--mode", "train", "--reference-model", "int8")
    assert code == 2 and "--reference-model" in err and "Traceback" not in err


def test_a_reference_model_of_its_own_size_is_held_in_its_dtype(capsys):
    # A `ref_model` or distillation teacher a script builds (tests/parity/test_trl_reference_parity.py):
    # its own parameter count, not the model's; the model's own count is a copy, split as the weights are.
    code, out, _ = run(capsys, CONFIG, "--mode", "train", "--reference-model", "bfloat16", "--json")
    (model,) = json.loads(out)["files"][0]["models"]
    total = model["params"]["total"]
    copy = {line["name"]: line for line in model["memory"]["lines"]}["reference_model"]
    for count, tp, zero in ((3 * total, 1, 0), (total, 1, 0), (3 * total + 1, 2, 0), (3 * total, 1, 3)):
        gpus = ["--tp", str(tp), "--gpus", "4"] if tp > 1 or zero else []
        code, out, _ = run(capsys, CONFIG, "--mode", "train", "--reference-model", "bfloat16", "--reference-parameters",
                           str(count), *gpus, *(["--zero", str(zero)] if zero else []), "--json")
        assert code == 0
        (model,) = json.loads(out)["files"][0]["models"]
        line = {line["name"]: line for line in model["memory"]["lines"]}["reference_model"]
        assert model["memory"]["reference_parameters"] == count
        if count == total:  # the same size: the copy, exact
            assert (line["bytes"], line["exact"]) == (copy["bytes"], True)
        else:
            per_gpu = -(-2 * count // tp)
            assert line["bytes"] == (-(-per_gpu // 4) if zero else per_gpu)
            assert line["exact"] is (tp == 1 and not zero) and f"{count:,} parameters" in line["detail"]
    code, out, _ = run(capsys, CONFIG, "--mode", "train", "--reference-model", "float16", "--reference-parameters", "7,000")
    assert code == 0 and "reference model float16 (7,000 parameters)" in out
    for bad, says in ((["--reference-parameters", "5"], "needs --reference-model"),
                      (["--reference-model", "float16", "--reference-parameters", "0"], "between 1"),
                      (["--reference-model", "float16", "--reference-parameters", "many"], "whole number")):
        code, out, err = run(capsys, CONFIG, "--mode", "train", *bad)
        assert code == 2 and "--reference-parameters" in err and says in err and "Traceback" not in err


def test_an_image_model_is_estimated_at_its_tokens_per_image(capsys, tmp_path):
    vit = tmp_path / "config.json"
    vit.write_text(json.dumps({"model_type": "vit", "architectures": ["ViTForImageClassification"]}))
    code, out, _ = run(capsys, str(vit), "--mode", "train", "--batch", "32")
    assert code == 0 and "context 197, batch 32" in out and "note: context 197: the tokens of one image" in out
    code, out, _ = run(capsys, str(vit), "--json", "--context", "1024")
    assert code == 0 and json.loads(out)["files"][0]["models"][0]["memory"]["context"] == 1024


def test_a_text_encoder_is_estimated_at_its_position_table_and_fits_no_longer(capsys, tmp_path):
    bert = tmp_path / "config.json"
    bert.write_text(json.dumps({"model_type": "bert", "architectures": ["BertForSequenceClassification"]}))
    code, out, _ = run(capsys, str(bert), "--gpu", "H100-80GB")
    assert code == 0 and "context 512, batch 1" in out and "largest context that fits: 512" in out


def test_an_encoder_s_inference_names_no_kv_cache(capsys, tmp_path):
    # CLIP keeps no KV cache: its header names no KV dtype and its activations are a forward pass, not a prefill.
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"model_type": "clip", "architectures": ["CLIPModel"], "torch_dtype": "bfloat16"}))
    code, out, _ = run(capsys, str(config), "--gpu", "RTX-4090", "--batch", "8")
    assert code == 0
    assert "memory per GPU (inference, weights bfloat16, context 77, batch 8)" in out
    assert "a forward pass over 77 tokens × batch 8" in out and "prefill" not in out
    code, out, _ = run(capsys, CONFIG, "--gpu", "RTX-4090")
    assert "memory per GPU (inference, weights bfloat16, KV bfloat16, context 4,096, batch 1)" in out
    assert "prefill of 4,096 tokens" in out


def test_a_convolutional_backbone_s_compute_line_counts_images(capsys, tmp_path):
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"model_type": "resnet", "architectures": ["ResNetForImageClassification"]}))
    code, out, _ = run(capsys, str(config), "--gpu", "A100-80GB", "--mode", "train", "--batch", "256")
    assert code == 0
    assert ("compute: N = 23.5M; forward 8.17e+09 FLOPs per 224 × 224 image (its convolutions and pointwise layers); "
            "training 3 × forward = 3.14e+16 FLOPs for 1,281,167 images (one ImageNet-1k epoch; --tokens sets the "
            "images)") in out
    assert "256 images of 224 × 224 pixels" in out and "Chinchilla" not in out
    code, out, _ = run(capsys, str(config), "--json", "--tokens", "1000", "--context", "112")
    compute = json.loads(out)["files"][0]["models"][0]["compute"]
    assert (compute["image_side"], compute["train_tokens"], compute["chinchilla_tokens"]) == (112, 1000, 0)


def test_an_image_transformer_s_compute_line_counts_images_of_its_tokens(capsys, tmp_path):
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"model_type": "vit", "architectures": ["ViTForImageClassification"]}))
    code, out, _ = run(capsys, str(config), "--gpu", "H100", "--mode", "lora")
    assert code == 0
    assert ("compute: N = 85.8M; forward 3.51e+10 FLOPs per image of 197 tokens (its linears, attention and patch "
            "embedding); training 2 × forward = 9e+16 FLOPs for 1,281,167 images (one ImageNet-1k epoch; --tokens "
            "sets the images)") in out
    assert "Chinchilla" not in out
    code, out, _ = run(capsys, str(config), "--json", "--tokens", "1000", "--context", "50")
    compute = json.loads(out)["files"][0]["models"][0]["compute"]
    assert (compute["image_tokens"], compute["image_side"], compute["train_tokens"]) == (50, None, 1000)


def test_the_header_of_a_model_training_its_own_adapters_names_no_lora_rank(capsys, tmp_path):
    # NeMo's IA3 scalers are the model's own adapters: the settings' LoRA rank does not apply to them.
    yaml = tmp_path / "megatron_gpt_peft.yaml"
    yaml.write_text("model:\n  num_layers: 2\n  hidden_size: 64\n  ffn_hidden_size: 128\n  num_attention_heads: 4\n"
                    "  normalization: rmsnorm\n  bias: False\n  activation: fast-swiglu\n  position_embedding_type: rope\n"
                    "  share_embeddings_and_output_weights: False\n  tokenizer:\n    library: megatron\n"
                    "    type: GPT2BPETokenizer\n  peft:\n    peft_scheme: ia3\n")
    code, out, _ = run(capsys, str(yaml), "--gpu", "RTX-4090")
    assert code == 0
    assert "memory per GPU (lora, weights bfloat16, context 4,096, batch 1, adamw, the model's own adapters)" in out
    code, out, _ = run(capsys, str(yaml), "--json")
    assert code == 0 and json.loads(out)["files"][0]["models"][0]["memory"]["own_adapters"] is True
    code, out, _ = run(capsys, CONFIG, "--gpu", "RTX-4090", "--mode", "lora")
    assert code == 1 and ", adamw, rank 16)" in out  # (8B LoRA does not fit a 4090)
    code, out, _ = run(capsys, CONFIG, "--mode", "lora", "--json")
    assert code == 0 and json.loads(out)["files"][0]["models"][0]["memory"]["own_adapters"] is False


def test_the_exit_status_says_whether_every_model_fits_every_gpu_given(capsys, tmp_path):
    # 0 where the model fits each --gpu, 1 where it misses one (a shell can act on it), 2 where an
    # input error comes first: the status says the worst.
    code, out, _ = run(capsys, CONFIG, "--gpu", "H100-80GB")
    assert code == 0 and "FITS" in out
    code, out, _ = run(capsys, CONFIG, "--gpu", "H100-80GB", "--gpu", "T4")
    assert code == 1 and "FITS" in out and "DOES NOT FIT" in out
    code, out, _ = run(capsys, CONFIG, "--gpu", "T4", "--json")
    assert code == 1 and json.loads(out)["files"][0]["models"][0]["fits"][0]["fits"] is False
    code, out, _ = run(capsys, CONFIG, "--mode", "train")  # no GPU given: nothing to miss
    assert code == 0
    broken = tmp_path / "config.json"
    broken.write_text('{"model_type": "llama",')
    code, _, err = run(capsys, CONFIG, str(broken), "--gpu", "T4")
    assert code == 2 and f"{broken}:1:" in err
