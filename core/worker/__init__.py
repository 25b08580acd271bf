"""The publisher process (`herald worker`)."""
