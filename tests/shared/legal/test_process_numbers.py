"""CNJ unified case numbers: check digits (ISO 7064 mod 97-10) and the court a number's J.TR segment names."""

from shared.legal import process_numbers


def test_cnj_check_digits() -> None:
    assert process_numbers.is_valid("0017387-33.2017.8.19.0000")
    assert not process_numbers.is_valid("0017387-34.2017.8.19.0000")
    assert process_numbers.is_valid("00173873320178190000")
    assert process_numbers.check_digits("0017387", "2017", "8", "19", "0000") == "33"
    assert process_numbers.court_of("0017387-33.2017.8.19.0000") == "tjrj"
    assert process_numbers.court_of("5004321-11.2020.4.04.7000") == "trf4"
    assert process_numbers.court_of("0000001-00.2020.5.02.0001") == "trt2"
    assert process_numbers.court_of("0000001-00.2020.6.26.0001") == "tre_sp"
    assert process_numbers.court_of("0000001-00.2020.8.07.0001") == "tjdft"


def test_numbers_found_in_text_and_their_courts() -> None:
    text = "Autos 0017387-33.2017.8.19.0000 e 00173873320178190000; não 10017387-33.2017.8.19.0000."
    found = [process_numbers.format_number(m) for m in process_numbers.CNJ.finditer(text)]
    assert found == ["0017387-33.2017.8.19.0000"]
    bare = [process_numbers.format_number(m) for m in process_numbers.CNJ_DIGITS.finditer(text)]
    assert bare == ["0017387-33.2017.8.19.0000"]
    assert process_numbers.court_of("0000001-00.2020.3.00.0000") == "stj"
    assert process_numbers.court_of("0000001-00.2020.8.28.0001") is None  # no 28th state court
    assert process_numbers.court_of("não é um número") is None
    assert process_numbers.UF_BY_TR["26"] == "SP"
