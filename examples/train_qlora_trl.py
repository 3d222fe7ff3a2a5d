"""QLoRA fine-tuning of Llama-3-8B with TRL. `lsp-count examples/train_qlora_trl.py --gpu RTX-4090`
counts the model the trainer trains and estimates its memory, without running anything: the
installed transformers and peft are read (never imported); trl, datasets, bitsandbytes and a GPU
are not needed, and the base model's config comes from the bundled catalog."""

import torch
from datasets import load_dataset
from peft import LoraConfig, prepare_model_for_kbit_training
from transformers import AutoModelForCausalLM, BitsAndBytesConfig
from trl import SFTConfig, SFTTrainer


def main():
    bnb = BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4", bnb_4bit_use_double_quant=True,
                             bnb_4bit_compute_dtype=torch.bfloat16)
    model = AutoModelForCausalLM.from_pretrained("meta-llama/Meta-Llama-3-8B", quantization_config=bnb)
    model = prepare_model_for_kbit_training(model)
    peft_config = LoraConfig(r=16, lora_alpha=32, target_modules="all-linear", task_type="CAUSAL_LM")
    trainer = SFTTrainer(model=model, args=SFTConfig(output_dir="llama-3-8b-qlora"),
                         train_dataset=load_dataset("trl-lib/Capybara", split="train"), peft_config=peft_config)
    trainer.train()


if __name__ == "__main__":
    main()
