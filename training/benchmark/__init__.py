"""``kdenv benchmark``: learning algorithms compared over seeds and tasks, with rliable's statistics."""
