"""The zoo models of the side-by-side run (bench/peers/peers.py --models
zoo): real models from torchvision, timm, Hugging Face transformers and
keras.applications, built as their users build them (the libraries' own
classes and configs, random initialization), at sizes whose step takes
20-200 ms on a 2-core machine, each with the optimizer its users train it
with. Each PyTorch model's step is the user's loop body

    loss = compute_loss(model, x, y); loss.backward(); opt.step();
    opt.zero_grad()

which PyTorch runs as it is (under torch.autocast for bf16, on
torch.compile(model) for torch-compile) and mp exports with
torch_export.export_step. Dropout rates are set to 0 where a config has
them (the cost of the step, not its recipe); timm's drop_path is 0 by
default. The Keras models are compiled with their optimizer and loss and
run through train_on_batch; mp exports them with keras_export.export.
"""

TORCH = {
    # name: (library, what, batch)
    "tv_resnet18": ("torchvision", "resnet18, 10 classes, 32x32 images, "
                    "SGD lr 0.01 momentum 0.9 wd 1e-4", 16),
    "tv_mobilenet_v3_small": ("torchvision", "mobilenet_v3_small, 10 classes, 64x64, "
                              "dropout 0, SGD lr 0.01 momentum 0.9 wd 1e-5", 16),
    "timm_convnext_atto": ("timm", "convnext_atto, 10 classes, 64x64, "
                           "AdamW lr 1e-3 wd 0.05", 16),
    "timm_vit_tiny": ("timm", "vit_tiny_patch16_224 at img_size 64, patch 8 "
                      "(64 tokens + cls), 10 classes, AdamW lr 1e-3 wd 0.05", 16),
    "hf_gpt2": ("transformers", "GPT2LMHeadModel, 4 layers, n_embd 256, 4 heads, "
                "vocab 2048, seq 128, model(ids, labels=ids).loss, AdamW lr 1e-3", 8),
    "hf_bert": ("transformers", "BertForSequenceClassification, 4 layers, hidden "
                "256, 4 heads, FFN 1024, seq 128, 4 labels, AdamW lr 1e-4", 8),
    "hf_llama": ("transformers", "LlamaForCausalLM, 4 layers, hidden 256, 8 heads, "
                 "4 KV heads (GQA), SwiGLU 688, RMSNorm, rotary, vocab 2048, seq "
                 "128, AdamW lr 1e-3", 8),
}

KERAS = {
    "keras_mobilenet_v2": ("keras.applications", "MobileNetV2, 10 classes, 64x64, "
                           "SGD lr 0.01 momentum 0.9, categorical (sparse) "
                           "cross-entropy", 16),
    "keras_resnet50": ("keras.applications", "ResNet50, 10 classes, 64x64, "
                       "SGD lr 0.01 momentum 0.9", 16),
    "keras_efficientnet_b0": ("keras.applications", "EfficientNetB0, 10 classes, "
                              "64x64, Adam lr 1e-3", 16),
}

MODELS = dict(TORCH, **KERAS)


def batch_of(name):
    return MODELS[name][2]


def _images(batch, size, classes=10):
    import torch
    g = torch.Generator().manual_seed(0)
    return (torch.randn(batch, 3, size, size, generator=g),
            torch.randint(0, classes, (batch,), generator=g))


def _tokens(batch, seq, vocab, classes=None):
    import torch
    g = torch.Generator().manual_seed(0)
    ids = torch.randint(1, vocab, (batch, seq), generator=g)
    if classes is None:
        return ids, ids.clone()
    return ids, torch.randint(0, classes, (batch,), generator=g)


def torch_zoo(name):
    """(model, optimizer, x, y, compute_loss) for a PyTorch zoo model:
    compute_loss(model, x, y) is the loss its users compute."""
    import torch
    import torch.nn.functional as F

    def classify(model, x, y):
        return F.cross_entropy(model(x), y)

    def lm(model, x, y):
        return model(input_ids=x, labels=y).loss

    batch = batch_of(name)
    torch.manual_seed(0)
    if name == "tv_resnet18":
        import torchvision
        model = torchvision.models.resnet18(num_classes=10)
        opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, weight_decay=1e-4)
        return (model, opt) + _images(batch, 32) + (classify,)
    if name == "tv_mobilenet_v3_small":
        import torchvision
        model = torchvision.models.mobilenet_v3_small(num_classes=10, dropout=0.0)
        opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, weight_decay=1e-5)
        return (model, opt) + _images(batch, 64) + (classify,)
    if name == "timm_convnext_atto":
        import timm
        model = timm.create_model("convnext_atto", num_classes=10)
        opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.05)
        return (model, opt) + _images(batch, 64) + (classify,)
    if name == "timm_vit_tiny":
        import timm
        model = timm.create_model("vit_tiny_patch16_224", num_classes=10, img_size=64,
                                  patch_size=8)
        opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.05)
        return (model, opt) + _images(batch, 64) + (classify,)
    import transformers
    if name == "hf_gpt2":
        config = transformers.GPT2Config(
            vocab_size=2048, n_positions=128, n_embd=256, n_layer=4, n_head=4,
            resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0, use_cache=False)
        model = transformers.GPT2LMHeadModel(config)
        opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
        return (model, opt) + _tokens(batch, 128, 2048) + (lm,)
    if name == "hf_bert":
        config = transformers.BertConfig(
            vocab_size=2048, hidden_size=256, num_hidden_layers=4, num_attention_heads=4,
            intermediate_size=1024, max_position_embeddings=128, num_labels=4,
            hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)
        model = transformers.BertForSequenceClassification(config)
        opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
        return (model, opt) + _tokens(batch, 128, 2048, classes=4) + (lm,)
    if name == "hf_llama":
        config = transformers.LlamaConfig(
            vocab_size=2048, hidden_size=256, intermediate_size=688, num_hidden_layers=4,
            num_attention_heads=8, num_key_value_heads=4, max_position_embeddings=128,
            use_cache=False)
        model = transformers.LlamaForCausalLM(config)
        opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
        return (model, opt) + _tokens(batch, 128, 2048) + (lm,)
    raise KeyError(name)


def keras_zoo(name):
    """(compiled model, x, y) for a Keras zoo model."""
    import keras
    import numpy as np
    batch = batch_of(name)
    keras.utils.set_random_seed(0)
    cls = {"keras_mobilenet_v2": "MobileNetV2", "keras_resnet50": "ResNet50",
           "keras_efficientnet_b0": "EfficientNetB0"}[name]
    model = getattr(keras.applications, cls)(include_top=True, weights=None,
                                             input_shape=(64, 64, 3), classes=10)
    opt = (keras.optimizers.Adam(1e-3) if name == "keras_efficientnet_b0" else
           keras.optimizers.SGD(0.01, momentum=0.9))
    model.compile(optimizer=opt, loss=keras.losses.SparseCategoricalCrossentropy())
    rng = np.random.default_rng(0)
    x = rng.standard_normal((batch, 64, 64, 3), dtype=np.float32)
    y = rng.integers(0, 10, batch)
    return model, x, y
