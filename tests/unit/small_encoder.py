"""The small encoder body the encoder families' hand counts share: hidden 8, 2 heads, an MLP 12 wide, 1 layer, 20
tokens, 10 positions, and what its parts hold."""

SMALL = {"hidden_size": 8, "num_attention_heads": 2, "intermediate_size": 12, "num_hidden_layers": 1,
         "vocab_size": 20, "max_position_embeddings": 10}
H, F, V, P = 8, 12, 20, 10
LINEAR = H * H + H                      # an 8 → 8 Linear with a bias: 72
MLP = (H * F + F) + (F * H + H)         # intermediate.dense, output.dense: 212
NORM = 2 * H                            # a LayerNorm's weight and bias: 16
LAYER = 4 * LINEAR + MLP + 2 * NORM     # query, key, value, output.dense; the MLP; two LayerNorms: 532
BERT_EMBEDDINGS = V * H + P * H + 2 * H + NORM  # word, position, two token types, LayerNorm: 272
