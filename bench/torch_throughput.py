"""Embedding throughput of sentence-transformers on PyTorch (CPU) on the chunk texts of a built
asset: the reference `scripts/bench.sh` compares `index-builder`'s embedding against.

    torch_throughput.py ASSET_DIR MODEL_DIR [--threads 2] [--batch 32] [--max-length 256]

Reads manifest.json and the chunk-text file (FORMAT.md: magic, version, index hash, hash, count,
deflated JSON array), encodes every text once after a warm-up, prints one JSON line.
"""

import argparse
import json
import struct
import time
import zlib
from pathlib import Path


def chunk_texts(asset: Path) -> list[str]:
    manifest = json.loads((asset / "manifest.json").read_text())
    data = (asset / manifest["files"]["chunks"]).read_bytes()
    assert data[:8] == b"BKCHTXT\0", "not a chunk-text file"
    (version,) = struct.unpack_from("<I", data, 8)
    assert version == 1, f"chunk-text version {version}"
    pos = 12
    for _ in range(2):  # index hash, body hash
        (n,) = struct.unpack_from("<I", data, pos)
        pos += 4 + n
    (count,) = struct.unpack_from("<I", data, pos)
    (size,) = struct.unpack_from("<Q", data, pos + 4)
    body = data[pos + 12 : pos + 12 + size]
    texts = json.loads(zlib.decompress(body, -15))
    assert len(texts) == count
    return texts


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("asset", type=Path)
    ap.add_argument("model", type=Path)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--max-length", type=int, default=256)
    args = ap.parse_args()

    import torch
    from sentence_transformers import SentenceTransformer

    torch.set_num_threads(args.threads)
    texts = chunk_texts(args.asset)
    model = SentenceTransformer(str(args.model), device="cpu")
    model.max_seq_length = args.max_length
    model.encode(["warm up"], batch_size=1)
    t0 = time.perf_counter()
    vectors = model.encode(texts, batch_size=args.batch, normalize_embeddings=True)
    secs = time.perf_counter() - t0
    assert len(vectors) == len(texts)
    print(json.dumps({
        "engine": f"sentence-transformers {__import__('sentence_transformers').__version__} "
                  f"on PyTorch {torch.__version__} (CPU)",
        "texts": len(texts),
        "threads": torch.get_num_threads(),
        "batch": args.batch,
        "max_length": args.max_length,
        "seconds": secs,
        "per_second": len(texts) / secs,
    }))


if __name__ == "__main__":
    main()
