"""Knowledge of Brazilian legal text as pure functions and data, shared by every stage: folding (text),
dates, CNJ process numbers, codes and labels of document types and courts (codes), canonical citation ids
(citations), how to cite a document (citing), document structure (sections), the type, court and title
rules (document_types, courts, titles) and work identity (works)."""
