"""Built-in doctors: the model under test and the scripted reference doctors.

A doctor is an Inspect agent. It receives the doctor's view of the consultation (a system
message with the clinical brief, then the patient's turns as ``user`` and its own earlier turns
as ``assistant``) and appends exactly one ``assistant`` reply.
"""

from gaa.doctors.model_doctor import doctor_system_prompt, model_doctor
from gaa.doctors.reference import REFERENCE_DOCTORS, reference_doctor

__all__ = ["REFERENCE_DOCTORS", "doctor_system_prompt", "model_doctor", "reference_doctor"]
