extension ShippedProtocols {
    /// Glucose Service (GATT Specification Supplement: Glucose Measurement).
    static let glucose = """
    btlog-protocol: 1
    name: Glucose
    key: gls
    description: Glucose Service - Glucose Measurement
    inline: true
    field-names: short
    gatt:
      - {characteristic: 2A18, message: measurement}
    messages:
      measurement:
        name: Glucose Measurement
        fields:
          - name: flags
            type: u8
            bits:
              - {name: offset_present, label: Time offset present, bit: 0}
              - {name: concentration_present, label: Concentration present, bit: 1}
              - {name: units, label: Concentration units, bit: 2, values: {0: kg/L, 1: mol/L}}
              - {name: status_present, label: Sensor status present, bit: 3}
              - {name: context_follows, label: Context information follows, bit: 4}
          - {name: sequence, label: Sequence number, type: u16}
          - {name: time, label: Base time, type: datetime}
          - {name: time_offset, label: Time offset, type: s16, unit: min, if: "flags & 0x01"}
          - if: "flags & 0x02"
            fields:
              - {name: concentration, label: Glucose concentration, type: sfloat}
              - name: sample
                type: u8
                format: hex
                bits:
                  - name: sample_type
                    label: Sample type
                    mask: 0x0F
                    values: {1: capillary whole blood, 2: capillary plasma, 3: venous whole blood, 4: venous plasma, 5: arterial whole blood,
                             6: arterial plasma, 7: undetermined whole blood, 8: undetermined plasma, 9: interstitial fluid, 10: control solution}
                  - name: sample_location
                    label: Sample location
                    mask: 0xF0
                    values: {1: finger, 2: alternate site test, 3: earlobe, 4: control solution, 15: not available}
          - {name: status, label: Sensor status annunciation, type: u16, format: hex, if: "flags & 0x08"}
        summary:
          - "Sequence {sequence}"
          - "{concentration} {units}"
          - "{sample_type}"
    """
}
