package provider

// What each kind of work can change when it does not fit (budgetDiagnostic).
const (
	jobBudgetFix = "Lower the jobspec's counts or its tasks' cpu, memory or ephemeral disk, or grow the node reservation."
)
