"""The station service: the table host on a Unix socket (its protocol, server and ops), its
configuration, its logging, `station serve`, and the service a screen starts for its account
(launch.py)."""
