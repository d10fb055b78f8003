"""Built-in doctors: the model under test (:mod:`gaa.doctors.model_doctor`), the scripted
reference doctors (:mod:`gaa.doctors.reference`), doctors that answer from elsewhere
(:mod:`gaa.doctors.remote`) and scripted doctors from YAML (:mod:`gaa.doctors.scripted`).

A doctor is an Inspect agent. It receives the doctor's view of the consultation (a system
message with the clinical brief, then the patient's turns as ``user`` and its own earlier turns
as ``assistant``) and appends exactly one ``assistant`` reply. The package itself imports
nothing, so the plugin registry can name its doctors without loading Inspect.
"""
