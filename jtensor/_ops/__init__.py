"""Op implementations, one module per family; importing a module registers its ops."""
