"""The station: its configuration, its logging and (to come) the station service."""
