"""Word documents built at test time with python-docx."""

import io

import docx
from docx.document import Document as WordDocument

TEXT = "Cuida-se de recurso especial sobre responsabilidade solidária do tomador de serviços."


def docx_bytes(document: WordDocument) -> bytes:
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def small_docx(text: str = TEXT) -> bytes:
    """One paragraph of text."""
    document = docx.Document()
    document.add_paragraph(text)
    return docx_bytes(document)


def contract_docx(clause: str) -> bytes:
    """A small contract as lawyers write them, with a distinctive clause on its second page."""
    document = docx.Document()
    document.add_heading("CONTRATO DE PRESTAÇÃO DE SERVIÇOS DE LIMPEZA", level=1)
    document.add_paragraph(
        "CONTRATANTE: Condomínio Edifício Aurora, inscrito no CNPJ sob o nº 12.345.678/0001-90. "
        "CONTRATADA: Limpa Bem Serviços Ltda., com sede em Belo Horizonte."
    )
    table = document.add_table(rows=2, cols=2)
    table.cell(0, 0).text, table.cell(0, 1).text = "Valor mensal", "R$ 12.000,00"
    table.cell(1, 0).text, table.cell(1, 1).text = "Vigência", "12 meses"
    document.add_page_break()
    document.add_paragraph("CLÁUSULA SÉTIMA – DAS OBRIGAÇÕES TRABALHISTAS")
    document.add_paragraph(clause)
    return docx_bytes(document)
