"""crl_math: the Ciphered Reasoning Loop for algebra (SDS-007) with tracked side-conditions."""
