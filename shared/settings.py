"""Settings every service reads, all from the PRECEDENTE_ environment prefix."""

from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="PRECEDENTE_", extra="ignore")

    # Infrastructure: empty means "start the embedded one" (precedente up) or is an error (serve).
    database_url: str = ""
    kafka_bootstrap: str = ""
    data_dir: Path = Path(".precedente")

    # Topics
    topic_partitions: int = 4
    topic_prefix: str = ""

    # Consumers (Tansu joins a group in about half the session timeout: tests lower it)
    consumer_session_timeout_ms: int = 10000
    consumer_heartbeat_interval_ms: int = 3000

    # Stage behaviour
    stage_max_attempts: int = 3
    ocr_language: str = "por"
    ocr_dpi: int = 300
    ocr_confidence_bar: float = 0.85
    ocr_workers: int = 2
    ocr_page_timeout_s: float = 120  # one page past this is marked failed (confidence 0), not the whole file
    ocr_preprocess: bool = True  # native pixels, deskew, stamps, orientation (services/extractor/preprocess.py)
    ocr_psm: int = 3  # Tesseract page segmentation mode; a reviewer's OCR pass may override it
    max_upload_bytes: int = 200 * 1024 * 1024
    extract_timeout_s: float = 900
    extract_memory_mb: int = 3072
    max_pages: int = 2000
    chunk_max_tokens: int = 512
    chunk_overlap_tokens: int = 64
    embedding_variant: str = "enpt"
    embedding_threads: int = 1

    # Optional LLM metadata extractor (services/annotator/llm.py), merged over the rules; "none" turns it off.
    metadata_llm_provider: Literal["none", "anthropic", "openai"] = "none"
    metadata_llm_base_url: str = "https://api.anthropic.com"
    metadata_llm_api_key: str = ""
    metadata_llm_model: str = "claude-3-5-haiku-latest"
    metadata_llm_timeout_s: float = 20
    metadata_llm_max_chars: int = 12000  # text sent: the first pages, up to this many characters

    # Search API
    api_host: str = "127.0.0.1"
    api_port: int = 8000
    api_url: str = "http://127.0.0.1:8000"
    identity_user_header: str = "X-Precedente-User"
    identity_groups_header: str = "X-Precedente-Groups"
    search_candidates: int = 50
    search_fusion: Literal["rrf", "weighted"] = "rrf"
    search_dense_weight: float = 0.7

    # `precedente up`: processes per service (the indexer's embeddings are the slowest step).
    up_replicas: dict[str, int] = {"indexer": 2}


@lru_cache
def get_settings() -> Settings:
    return Settings()
